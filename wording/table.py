"""Human-readable renderings: verdict tables and timelines for the terminal."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from medeventgraph.core import Verdict, VerificationQuery, format_time, sort_key
from medeventgraph.model.occurrence import EventTime, Occurrence, TimeType
from medeventgraph.wording.evidence import EvidenceLine, evidence_line
from medeventgraph.wording.summary import finding_text
from medeventgraph.wording.templates import Wording, load_wording
from medeventgraph.wording.times import When, when_text

__all__ = ["format_table", "timeline_rows", "timeline_table", "verdict_table"]


_POLARITY = {"supports": "for", "counters": "against", "neutral": "related"}


def _clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def format_table(rows: Sequence[dict[str, Any]], columns: Sequence[str], max_width: int = 60) -> str:
    cells = [[_clip(str(r.get(c, "") if r.get(c) is not None else ""), max_width) for c in columns] for r in rows]
    widths = [max([len(c)] + [len(row[i]) for row in cells]) for i, c in enumerate(columns)]
    line = "  ".join(c.ljust(w) for c, w in zip(columns, widths, strict=True))
    out = [line, "  ".join("-" * w for w in widths)]
    out += ["  ".join(v.ljust(w) for v, w in zip(row, widths, strict=True)) for row in cells]
    return "\n".join(out) + "\n"


def _row(ln: EvidenceLine) -> dict[str, str]:
    return {"": _POLARITY.get(ln.polarity, ln.polarity), "when": ln.when,
            "entry": ln.label + (f" ({', '.join(ln.qualifiers)})" if ln.qualifiers else ""),
            "words": ln.words, "source": ln.reference + (f" {ln.span}" if ln.span else "")}


def verdict_table(v: Verdict, query: VerificationQuery | None = None) -> str:
    """The verdict as the cards and the SMART page word it: the finding, what was checked, the
    deciding entries newest first, then the other entries; codes and scores only in the audit line."""
    finding = finding_text(v, query)
    head = [
        f"finding   {finding.summary}",
        f"checked   {finding.checked}",
        f"patient   {v.patient}",
    ]
    if v.excluded:
        head.append(f"left out  {sum(v.excluded.values())} entries of other patients in the input")
    shown = {ln.occurrence for ln in finding.evidence}
    others = sorted((evidence_line(e, load_wording()) for e in v.evidence if e.occurrence not in shown),
                    key=lambda ln: ln.sort_key, reverse=True)
    parts = ["\n".join(head), ""]
    for title, lines in (("deciding evidence, newest first", finding.evidence), ("other entries", others)):
        if lines:
            parts += [title, format_table([_row(ln) for ln in lines], ["", "when", "entry", "words", "source"], 96)]
    label = v.verdict.value.upper()
    parts.append(f"audit     {label} · " + finding.audit_line.split(" · ", 1)[1])
    return "\n".join(parts)


def timeline_rows(occurrences: Iterable[Occurrence], kinds: set[str] | None = None) -> list[dict[str, Any]]:
    rows = []
    for o in sorted(occurrences, key=sort_key):
        if kinds and o.kind.value not in kinds:
            continue
        rows.append(
            {
                "time": format_time(o.time.start) if o.time.start else "unknown",
                "granularity": o.time.granularity.value,
                # an encounter-bounded time is the whole stay, not an instant: show its end too
                "time_type": o.time.type.value + (f" (to {format_time(o.time.end) if o.time.end else 'open'})"
                                                  if o.time.type is TimeType.ENCOUNTER_BOUNDED else ""),
                "kind": o.kind.value,
                "concept": o.concept.text,
                "value": _value_text(o),
                "encounter": (o.encounter or "").removeprefix("Encounter/")[:13],
                "reference": o.id,
            }
        )
    return rows


def _when(time: EventTime, documented: EventTime | None) -> When | None:
    """The occurrence's own time, else its documentation date as a "no later than" bound."""
    if time.resolved and time.start is not None:
        return When(time.start, time.end, time.granularity.value, in_encounter=time.type is TimeType.ENCOUNTER_BOUNDED)
    if documented is not None and documented.resolved and documented.start is not None:
        return When(documented.start, None, documented.granularity.value, bound=True)
    return None


def _value_text(o: Occurrence) -> str:
    if o.value is None:
        return ""
    if o.value.quantity is not None:
        return f"{o.value.quantity:g} {o.value.unit or ''}".strip()
    return o.value.text or ""


def timeline_table(occurrences: Iterable[Occurrence], kinds: set[str] | None = None, w: Wording | None = None) -> str:
    """A patient's events for people: human dates, the kind of entry in words, the record's own
    name and how a note asserts it ("stated as absent"), and the FHIR reference to look it up."""
    w = w or load_wording()
    rows = []
    for o in sorted(occurrences, key=sort_key):
        if kinds and o.kind.value not in kinds:
            continue
        qualifiers = [w.assertion_words.get(k, k) for k in ("negated", "uncertain", "hypothetical", "historical", "family")
                      if getattr(o.assertion, k)]
        name = " ".join(o.concept.text.split()) + (f" ({', '.join(qualifiers)})" if qualifiers else "")
        rtype = o.source.resource_type
        rows.append({"when": when_text(_when(o.time, o.documented)), "entry": w.resource_labels.get(rtype, rtype),
                     "name": name, "value": _value_text(o), "source": o.id})
    return format_table(rows, ["when", "entry", "name", "value", "source"], 70)
