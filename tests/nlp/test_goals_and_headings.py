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


@pytest.mark.parametrize(("title", "role"), [
    ("PLANS", "plan"), ("DISCUSSION/PLAN", "plan"), ("PROBLEMS LIST", "problem_list"),
    ("MEDICATIONS PRIOR TO ADMISSION", "medications"), ("CURRENT MEDS", "medications"),
    ("BIRTH HISTORY", "past_medical_history"), ("PERSONAL AND SOCIAL HISTORY", "social_history"),
    ("TRANSFER INSTRUCTIONS", "patient_instructions"),
])
def test_other_titles_clinicians_write_have_their_role(pipeline, title, role):
    from medeventgraph.nlp.narrative import note_layout

    text = f"HISTORY OF PRESENT ILLNESS: ,She had a fall.,{title}: ,A transfusion."
    assert [s.role for s in note_layout(text).sections] == ["history_of_present_illness", role]
    (mention,) = pipeline.mentions([make_note(text)], [TRANSFUSION])
    assert mention.assertion.hypothetical is (role in ("plan", "patient_instructions"))
