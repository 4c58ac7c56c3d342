"""A finding the project computed (a KDIGO creatinine rise bound to "acute kidney injury") reads as
computed on every surface — the wording layer's summary, the CDS card, the CLI table, the
screening finding (DetectedIssue.detail) and the SMART page — and never as "AKI documented";
a diagnosis someone did document still reads "AKI documented"."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from medeventgraph.cds_hooks.cards import verdict_card
from medeventgraph.model.settings import Settings
from medeventgraph.screen.wording import finding_words
from medeventgraph.smart.view import page_payload
from medeventgraph.wording.computed import computed_name, computed_value
from medeventgraph.wording.evidence import evidence_line
from medeventgraph.wording.summary import finding_text
from medeventgraph.wording.table import verdict_table
from medeventgraph.wording.templates import Wording, load_wording

from .records import aki_diagnosis, kdigo_rise, supported

COMPUTED = "Creatinine rise meeting KDIGO criteria 21 hours 43 minutes after vancomycin (15 → 16 Jun 2024)"


def test_the_summary_names_the_computation_not_a_documented_condition():
    finding = finding_text(*supported(kdigo_rise()))
    assert finding.summary == COMPUTED
    assert "documented" not in finding.summary and "AKI" not in finding.summary
    assert "creatinine rise meeting KDIGO criteria on 16 Jun 2024 08:01" in finding.checked


def test_a_documented_diagnosis_still_reads_documented():
    finding = finding_text(*supported(aki_diagnosis()))
    assert finding.summary == "AKI documented 21 hours 43 minutes after vancomycin (15 → 16 Jun 2024)"


def test_every_surface_says_computed():
    verdict, query = supported(kdigo_rise())
    card = verdict_card(verdict, query, Settings())
    table = verdict_table(verdict, query)
    words = finding_words(verdict, query)
    page = page_payload(SimpleNamespace(record=SimpleNamespace(resources={}), documents={}), verdict, query)
    for text in (card.summary, table.splitlines()[0].removeprefix("finding   "), words["summary"],
                 page["finding"]["summary"]):
        assert text == COMPUTED
    assert words["detail"].startswith(COMPUTED + ". The record has vancomycin on 15 Jun 2024 10:18 and creatinine "
                                                "rise meeting KDIGO criteria")
    assert "AKI documented" not in card.detail and "AKI documented" not in table


def test_the_evidence_row_says_computed_and_shows_the_values():
    line = evidence_line(verdict_item := kdigo_rise_out(), load_wording())
    assert line.label == "Computed from results"
    assert line.words == "Creatinine rise (KDIGO), 0.9 → 2.1 mg/dL (+1.20 mg/dL within 48 h)"
    assert line.when == "16 Jun 2024 08:01" and line.reference == verdict_item.source.reference


def kdigo_rise_out():
    verdict, _ = supported(kdigo_rise())
    return next(e for e in verdict.evidence if e.origin == "derived")


def test_a_rule_without_its_own_words_gets_the_default_and_the_default_is_checked():
    item = kdigo_rise_out().model_copy(update={"codes": ["urn:medeventgraph:derive|new-rule"],
                                               "concept": "Elevated lactate (> 2 mmol/L)"})
    assert computed_name(item, load_wording()) == "elevated lactate (> 2 mmol/L), computed from results"
    assert computed_value(item.model_copy(update={"value": {"quantity": 6.1, "text": "6.1 mmol/L (above 5.5)"}})) \
        == "6.1 mmol/L (above 5.5)"
    raw = load_wording().model_dump()
    with pytest.raises(ValueError, match="computed_default"):
        Wording.model_validate({**raw, "computed_default": "computed: {value}"})
