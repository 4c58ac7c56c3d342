"""The server-rendered evidence timeline: well-formed SVG with a lane per event, a mark per
entry (shape by origin, colour by polarity), ranges for imprecise times, the deciding pair
joined and labelled, accessible labels, and record text that cannot become markup."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from datetime import UTC, datetime
from pathlib import Path

from medeventgraph.core.query.verdict import Verdict
from medeventgraph.wording.timeline_layout import close_up_window
from medeventgraph.wording.timeline_svg import Band, timeline_svg

INPUTS = Path(__file__).resolve().parents[1] / "cds_hooks" / "golden" / "inputs"
SVG = "{http://www.w3.org/2000/svg}"
STAY = Band("Encounter/golden-enc-1", datetime(2023, 3, 1, 8, tzinfo=UTC), datetime(2023, 3, 12, 12, tzinfo=UTC),
            "Inpatient stay 1–12 Mar 2023")


def _draw(name: str, bands: list[Band] | None = None, **kw) -> tuple[Verdict, ET.Element]:
    case = json.loads((INPUTS / f"{name}.json").read_text())
    verdict = Verdict.model_validate(case["verdict"])
    lanes = [(e["id"], e["text"]) for e in case["query"]["events"]]
    return verdict, ET.fromstring(timeline_svg(verdict, lanes, [STAY] if bands is None else bands, **kw))


def _marks(root: ET.Element) -> list[ET.Element]:
    return [g for g in root.iter(f"{SVG}g") if "mark" in (g.get("class") or "").split()]


def test_a_mark_per_entry_and_event_with_shape_and_colour():
    verdict, root = _draw("conflicting-bleeding-denied")
    marks = _marks(root)
    assert len(marks) == sum(len(e.events) for e in verdict.evidence)
    by_occ = {m.get("data-occurrence"): m for m in marks}
    note = by_occ["DocumentReference/golden-note-2#s10-18"]
    assert note.get("data-polarity") == "counters" and note.find(f"{SVG}polygon").get("fill") == "#cf222e"
    row = by_occ["Condition/golden-bleed-1"]
    assert row.get("data-polarity") == "supports" and row.find(f"{SVG}circle").get("fill") == "#1a7f37"
    assert note.get("data-range") == "yes"  # known only to be no later than the note's date
    assert all(m.get("tabindex") == "0" and m.get("aria-label") and m.find(f"{SVG}title") is not None for m in marks)
    lanes = [t.text for t in root.iter(f"{SVG}text") if t.get("class") == "lane-label"]
    assert lanes == ["anticoagulant", "bleeding"]
    assert [g.get("data-reference") for g in root.iter(f"{SVG}g") if g.get("class") == "encounter"] == [STAY.reference]


def test_day_granularity_is_a_range_and_the_pair_is_labelled_with_its_interval():
    _, root = _draw("supported-aki-after-vancomycin")
    aki = next(m for m in _marks(root) if m.get("data-occurrence") == "Condition/golden-aki-1")
    assert aki.get("data-range") == "yes"
    [pair] = [g for g in root.iter(f"{SVG}g") if g.get("class") == "pair"]
    assert pair.get("data-timing") == "compatible"
    assert pair.get("data-from") == "MedicationAdministration/golden-vanc-1" and pair.get("data-to") == "Condition/golden-aki-1"
    assert next(t.text for t in pair.iter(f"{SVG}text")) == "+2 d"


def test_an_after_relation_is_labelled_from_the_earlier_event():
    _, root = _draw("refuted-reverse-order")  # "vancomycin after AKI": the pair runs AKI -> vancomycin
    pairs = [g for g in root.iter(f"{SVG}g") if g.get("class") == "pair"]
    assert pairs and next(t.text for t in pairs[0].iter(f"{SVG}text")).startswith("−")


def test_record_text_is_escaped():
    case = json.loads((INPUTS / "refuted-rash-denied.json").read_text())
    case["verdict"]["evidence"][0]["concept"] = "</title><script>alert(1)</script>"
    verdict = Verdict.model_validate(case["verdict"])
    text = timeline_svg(verdict, [("e0", "<b>vanco</b>"), ("e1", "rash")], [STAY])
    root = ET.fromstring(text)
    assert not list(root.iter(f"{SVG}script")) and not list(root.iter("script")) and "<b>" not in text


def test_close_up_only_when_the_pair_is_a_sliver_of_the_period():
    verdict, _ = _draw("supported-aki-after-vancomycin")
    assert close_up_window(verdict, [STAY]) is None  # two days in an eleven-day stay
    long_stay = Band(STAY.reference, datetime(2022, 1, 1, tzinfo=UTC), datetime(2023, 12, 1, tzinfo=UTC), "long")
    window = close_up_window(verdict, [long_stay])
    assert window is not None and window[0] < datetime(2023, 3, 2, 10, tzinfo=UTC) < window[1]
    _, root = _draw("supported-aki-after-vancomycin", [long_stay], window=window)
    assert {m.get("data-occurrence") for m in _marks(root)} >= {"Condition/golden-aki-1", "MedicationAdministration/golden-vanc-1"}
