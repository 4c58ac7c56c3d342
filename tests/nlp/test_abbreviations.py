"""Abbreviations a note defines are expanded to the defined term (scispacy's AbbreviationDetector)."""

from __future__ import annotations

import pytest
from medeventgraph.model.occurrence import Kind
from medeventgraph.nlp import TargetTerm
from medeventgraph.nlp.abbreviations import doc_abbreviations

from .conftest import make_note


def uses(pipeline, text):
    return [(u.short, u.long, text[u.start:u.end]) for u in doc_abbreviations(pipeline.nlp(text))]


@pytest.mark.parametrize(
    ("text", "short", "long"),
    [
        ("Risk of contrast-induced nephropathy (CIN) noted. CIN resolved.", "CIN", "contrast-induced nephropathy"),
        ("Chronic obstructive pulmonary disease (COPD) exacerbation. COPD stable.", "COPD",
         "Chronic obstructive pulmonary disease"),
        ("on day 3 acute kidney injury (AKI) was noted; AKI improved", "AKI", "acute kidney injury"),
    ],
)
def test_later_uses_of_a_definition(pipeline, text, short, long):
    assert uses(pipeline, text) == [(short, long, short)]


@pytest.mark.parametrize("text", ["Seen in 2019 (2019). 2019 again.", "Given twice (see below). see",
                                  "No parenthesis here"])
def test_asides_are_not_abbreviations(pipeline, text):
    assert uses(pipeline, text) == []


def test_uses_exclude_the_definition_and_partial_words(pipeline):
    text = "contrast-induced nephropathy (CIN). CIN rising; CINE scan; pre-CIN."
    assert [u[2] for u in uses(pipeline, text)] == ["CIN"]


def test_many_brackets_stay_linear(pipeline):
    """scispacy's own bracket pattern yields a match per pair of brackets; ours at most one per '('."""
    text = "(a) " * 300 + "acute kidney injury (AKI). AKI."
    doc = pipeline.nlp(text)
    detector = pipeline.nlp.get_pipe("medeventgraph_abbreviations").detector
    assert len(detector.matcher(doc)) <= text.count("(")
    assert [u.short for u in doc_abbreviations(doc)] == ["AKI"]


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
