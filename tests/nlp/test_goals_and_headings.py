"""Assertions of a goal, and a heading that ends a cue's reach: sentences written for this test."""

from __future__ import annotations

import pytest
from medeventgraph.model.occurrence import Kind
from medeventgraph.nlp import TargetTerm

from .conftest import make_note

TRANSFUSION = TargetTerm("transfusion", "transfusion", Kind.PROCEDURE, "query")
BLEEDING = TargetTerm("bleeding", "bleeding", Kind.CONDITION, "query")


@pytest.mark.parametrize(("text", "hypothetical"), [
    ("We will keep her overnight to ensure there is no further bleeding.", True),
    ("Hemoglobin will be checked in the morning to make sure the bleeding has stopped.", True),
    ("The bleeding stopped after pressure was applied.", False),
])
def test_a_goal_is_not_a_finding(pipeline, text, hypothetical):
    (mention,) = pipeline.mentions([make_note(text)], [BLEEDING])
    assert mention.assertion.hypothetical is hypothetical
    if hypothetical:
        assert not mention.assertion.affirmed_current


def test_a_run_in_heading_ends_the_scope_of_a_negation_before_it(pipeline):
    # dictation flattened into one line; "HPI." reads as an abbreviation, not a sentence end
    text = "REVIEW OF SYSTEMS:  ,Negative as stated in the HPI.,PRIOR CARE:  ,She had a transfusion in 2019."
    (mention,) = pipeline.mentions([make_note(text)], [TRANSFUSION])
    assert not mention.assertion.negated
    sentences = [s.text.strip(" ,") for s in pipeline.nlp(text).sents]
    assert "Negative as stated in the HPI." in sentences
