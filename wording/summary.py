"""A verdict in plain clinical language: one summary line, one sentence of what was checked,
the deciding evidence newest first, and an audit line that alone carries codes and scores.

    >>> finding = finding_text(verdict, query)
    >>> finding.summary       # 'AKI documented 2 days after vancomycin (3 → 5 Feb 2015)'
    >>> finding.detail_markdown

Used by CDS Hooks cards, the CLI table, the SMART page and DetectedIssue.detail, so every
surface says the same thing. Pure: no I/O beyond the packaged templates, no FastAPI.
"""

from __future__ import annotations

from dataclasses import dataclass

from medeventgraph.core import Verdict, VerificationQuery
from medeventgraph.wording.evidence import EvidenceLine, deciding_lines, markdown_lines
from medeventgraph.wording.facts import facts_for
from medeventgraph.wording.templates import Wording, load_wording

__all__ = ["MAX_SUMMARY", "EvidenceLine", "Finding", "audit_line", "finding_text"]

MAX_SUMMARY = 139  # CDS Hooks: a summary is fewer than 140 characters
_MAX_LINES = 6


@dataclass(frozen=True, slots=True)
class Finding:
    summary: str  # < 140 characters, no codes, no scores
    checked: str  # one sentence: what was checked and why the answer is what it is
    detail_markdown: str  # checked sentence, deciding evidence newest first, audit line last
    audit_line: str  # verdict label, S+, S-, failure code, bundle hash
    template: str  # the template key used (for tests and audit)
    evidence: tuple[EvidenceLine, ...]  # the deciding evidence, newest first
    more: int  # evidence items not listed


def _clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip(" ,;:(") + "…"


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def audit_line(verdict: Verdict) -> str:
    failure = verdict.failure.value if verdict.failure else "none"
    return (f"Audit: {verdict.verdict.value} · S+ {verdict.s_plus:.2f} · S− {verdict.s_minus:.2f} · "
            f"failure {failure} · bundle {verdict.bundle_hash}")


def finding_text(verdict: Verdict, query: VerificationQuery | None = None, *, lead: str | None = None,
                 note: str | None = None, wording: Wording | None = None) -> Finding:
    """The plain-language finding for a verdict.

    `query` gives the events' names and the scope (without it, names come from the evidence);
    `lead` goes before the summary when it fits ("Vancomycin ordered"); `note` is a line put
    above the checked sentence (e.g. the watch-list item that raised the card).
    """
    w = wording or load_wording()
    facts = facts_for(verdict, query, w)
    key, tpl = w.template_for(verdict.verdict.value, verdict.failure.value if verdict.failure else None,
                              facts.variant)
    summary = _capital(tpl.summary.format_map(facts.values))
    if lead and len(lead) + 2 + len(summary) <= MAX_SUMMARY:
        summary = f"{lead}: {summary}"
    summary = _clip(summary, MAX_SUMMARY)
    checked = _capital(" ".join(tpl.checked.format_map(facts.values).split()))
    lines, more = deciding_lines(verdict, facts.deciding, w, limit=_MAX_LINES)
    audit = audit_line(verdict)
    parts = [f"_{note}_", ""] if note else []
    parts.append(checked)
    parts += markdown_lines(lines, w)
    if more:
        parts += ["", f"{more} more related {'entry' if more == 1 else 'entries'} in the record."]
    if not verdict.evidence:
        parts += ["", "Nothing in the record matched the question."]
    parts += ["", "---", f"`{audit}`"]
    return Finding(summary, checked, "\n".join(parts), audit, key, tuple(lines), more)


