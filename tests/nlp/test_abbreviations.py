"""Abbreviations a note defines are expanded to the defined term (Schwartz & Hearst)."""

from __future__ import annotations

import pytest
from medeventgraph.nlp import TargetTerm
from medeventgraph.nlp.abbreviations import best_long_form, find_definitions, short_form_uses
from medeventgraph.occurrence import Kind

from .conftest import make_note


@pytest.mark.parametrize(
    ("text", "short", "long"),
    [
        ("Risk of contrast-induced nephropathy (CIN) noted.", "CIN", "contrast-induced nephropathy"),
        ("Chronic obstructive pulmonary disease (COPD) exacerbation", "COPD", "Chronic obstructive pulmonary disease"),
        ("on day 3 acute kidney injury (AKI) was noted", "AKI", "acute kidney injury"),
        ("blood pressure (BP) was low", "BP", "blood pressure"),
    ],
)
def test_definitions_found(text, short, long):
    [d] = find_definitions(text)
    assert (d.short, d.long, text[d.long_start:d.long_end]) == (short, long, long)


@pytest.mark.parametrize("text", ["Seen in 2019 (2019).", "Given twice (see below).", "No parenthesis here"])
def test_asides_are_not_abbreviations(text):
    assert find_definitions(text) == []


def test_long_form_must_cover_the_short_form_letters():
    assert best_long_form("CIN", "worried about contrast-induced nephropathy") == "contrast-induced nephropathy"
    assert best_long_form("XYZ", "acute kidney injury") is None


def test_uses_exclude_the_definition_and_partial_words():
    text = "contrast-induced nephropathy (CIN). CIN rising; CINE scan; pre-CIN."
    [d] = find_definitions(text)
    assert [text[s:e] for s, e in short_form_uses(text, d)] == ["CIN"]


def test_a_defined_short_form_is_a_mention_with_context(pipeline):
    text = "Worried about contrast-induced nephropathy (CIN).\nDay 3: CIN confirmed. No CIN on day 5."
    term = TargetTerm("contrast-induced nephropathy", "contrast-induced nephropathy", Kind.CONDITION, "query")
    mentions = pipeline.mentions([make_note(text)], [term])
    spans = [(text[m.source.start:m.source.end], m.assertion.negated) for m in mentions]
    assert spans == [("contrast-induced nephropathy", False), ("CIN", False), ("CIN", True)]
    assert {m.concept.text for m in mentions} == {"contrast-induced nephropathy"}


def test_undefined_short_forms_are_not_guessed(pipeline):
    text = "CIN confirmed on day 3."
    term = TargetTerm("contrast-induced nephropathy", "contrast-induced nephropathy", Kind.CONDITION, "query")
    assert pipeline.mentions([make_note(text)], [term]) == []
