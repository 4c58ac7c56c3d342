"""Golden cards: one frozen verdict per template (verdict x failure type x variant), rendered
as a CDS Hooks card and compared with the card text kept beside it.

The verdicts were produced by the real engine from the golden patients (golden/regenerate.py);
the expected cards are refreshed with MEG_GOLDEN_UPDATE=1 after a deliberate wording change.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from medeventgraph.cds_hooks.cards import verdict_card
from medeventgraph.core.query.model import VerificationQuery
from medeventgraph.core.query.verdict import Verdict
from medeventgraph.model.settings import Settings
from medeventgraph.wording.summary import MAX_SUMMARY, finding_text
from medeventgraph.wording.templates import load_wording, template_keys

from .conftest import assert_card_ok

GOLDEN = Path(__file__).resolve().parent / "golden"
CASES = sorted((GOLDEN / "inputs").glob("*.json"))
UPDATE = os.environ.get("MEG_GOLDEN_UPDATE") == "1"
# What must never show above the audit line: scores, ISO durations, failure codes, engine words.
INTERNAL = re.compile(r"S\+|S−|S-\s|\bP\d+[DWH]\b|\bPT\d|sha256|missing_endpoint|unresolved_|opposite_order|"
                      r"scope unit|\bnegated\b|\bsupported\b|\brefuted\b|\binsufficient\b|granularity|\(second\)")


def _load(path: Path) -> tuple[dict, VerificationQuery, Verdict]:
    case = json.loads(path.read_text())
    return case, VerificationQuery.model_validate(case["query"]), Verdict.model_validate(case["verdict"])


def _render(path: Path) -> str:
    _, query, verdict = _load(path)
    card = verdict_card(verdict, query, Settings(smart_app_url="https://apps.example.org/meg/launch"),
                        patient=verdict.patient, adverse=True).model_dump(mode="json", exclude_none=True)
    assert_card_ok(card)
    return f"summary: {card['summary']}\nindicator: {card['indicator']}\n\n{card['detail']}\n"


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_card_matches_golden(path: Path):
    expected = GOLDEN / "cards" / f"{path.stem}.md"
    got = _render(path)
    if UPDATE:
        expected.parent.mkdir(exist_ok=True)
        expected.write_text(got)
    assert expected.exists(), f"no golden card for {path.stem}: run with MEG_GOLDEN_UPDATE=1"
    assert got == expected.read_text()


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_case_reaches_its_template_and_hides_codes_above_the_audit_line(path: Path):
    case, query, verdict = _load(path)
    finding = finding_text(verdict, query)
    assert finding.template == case["template"]
    assert len(finding.summary) <= MAX_SUMMARY
    above, audit = finding.detail_markdown.rsplit("\n---\n", 1)
    assert not INTERNAL.search(finding.summary), finding.summary
    assert not INTERNAL.search(above), above
    assert verdict.bundle_hash in audit and f"S+ {verdict.s_plus:.2f}" in audit
    assert (verdict.failure.value if verdict.failure else "none") in audit
    # Every entry shown names its FHIR resource, and only this patient's entries are shown.
    refs = re.findall(r"`([A-Za-z]+/[A-Za-z0-9.\-]+)`", above)
    assert set(refs) <= {e.source.reference for e in verdict.evidence}


def test_every_template_has_a_golden_case():
    used = {json.loads(p.read_text())["template"] for p in CASES}
    assert used == set(template_keys(load_wording()))


def test_newest_first_and_mention_in_bold():
    _, query, verdict = _load(GOLDEN / "inputs" / "conflicting-bleeding-denied.json")
    finding = finding_text(verdict, query)
    keys = [ln.sort_key for ln in finding.evidence]
    assert keys == sorted(keys, reverse=True) and len(keys) >= 2
    note = next(ln for ln in finding.evidence if ln.is_note)
    assert note.mention.lower() == "bleeding" and f"**{note.mention}**" in finding.detail_markdown


def test_readme_example_cards_are_golden_cards():
    readme = (GOLDEN.parents[2] / "README.md").read_text()
    blocks = list(re.finditer(r"<!-- golden-card:(?P<name>[\w-]+) -->\n```markdown\n(?P<card>.*?)```\n<!-- /golden-card -->",
                              readme, re.DOTALL))
    # the README shows a structured-record card and a card citing an order a note states (issue #19)
    assert {m["name"] for m in blocks} >= {"supported-aki-after-vancomycin", "supported-note-stated-order"}
    for m in blocks:
        assert m["card"] == (GOLDEN / "cards" / f"{m['name']}.md").read_text(), m["name"]
