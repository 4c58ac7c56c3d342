"""Two mentions that both hold when the note is written overlap: sentences written for these tests."""

from __future__ import annotations

import pytest
from medeventgraph.nlp.present_state import BOTH_CURRENT, both_current, present_basis
from medeventgraph.nlp.relations import check_order, find_relation


def span(text: str, words: str) -> tuple[int, int]:
    start = text.index(words)
    return start, start + len(words)


@pytest.mark.parametrize(("text", "first", "second", "basis"), [
    # present-state sections: the assessment's problem and the examination's finding
    ("PHYSICAL EXAMINATION: ,Lungs: scattered wheezes.,ASSESSMENT: ,Asthma exacerbation.",
     "wheezes", "Asthma exacerbation", "ASSESSMENT"),
    # a lab value on the chart and the problem it belongs to
    ("LABORATORY DATA: ,CK 12,000.,IMPRESSION: ,Rhabdomyolysis.", "CK 12,000", "Rhabdomyolysis", "IMPRESSION"),
    # words that say it holds now, in a narrative section
    ("HOSPITAL COURSE: ,He remains on the ventilator and is currently receiving tube feeds.",
     "ventilator", "tube feeds", "is currently receiving"),
    # the medication list holds what the patient is on; the problem list what they have
    ("CURRENT MEDICATIONS: ,Warfarin 5 mg daily.,PROBLEM LIST: ,Atrial fibrillation.",
     "Warfarin", "Atrial fibrillation", "PROBLEM LIST"),
    # a state told as lasting until now: a present perfect with its duration, or a present complaint's
    ("HISTORY OF PRESENT ILLNESS: ,She has had fever and chills for the past 2 days.", "fever", "chills",
     "for the past 2 days"),
    ("HISTORY OF PRESENT ILLNESS: ,For three weeks he has been taking ibuprofen and naproxen.", "ibuprofen",
     "naproxen", "For three weeks"),
    ("HISTORY OF PRESENT ILLNESS: ,He reports 3 days of cough and wheezing.", "cough", "wheezing", "3 days of"),
    # the simple present of having a condition and of a habit of taking a drug
    ("HISTORY OF PRESENT ILLNESS: ,He has asthma and uses albuterol as needed.", "asthma", "albuterol", "uses"),
    ("HISTORY OF PRESENT ILLNESS: ,She takes allopurinol.  She has gout.", "allopurinol", "gout", "has"),
])
def test_both_current_is_an_overlap(text, first, second, basis):
    a, b = span(text, first), span(text, second)
    placed = both_current(text, b, a)
    assert placed is not None and placed.rule == BOTH_CURRENT
    assert text[placed.cue_start:placed.cue_end] == basis
    found = find_relation(text, a, b)
    assert found is not None and found.overlap and check_order(text, found)


@pytest.mark.parametrize(("text", "first", "second"), [
    # a story told in the past is not the present, even in an assessment
    ("ASSESSMENT: ,She was treated for pneumonia in 2019.  Now with COPD exacerbation.", "pneumonia",
     "COPD exacerbation"),
    # a history section is the past
    ("PAST MEDICAL HISTORY: ,Hepatitis.,ASSESSMENT: ,Cirrhosis.", "Hepatitis", "Cirrhosis"),
    # the hospital course tells events, not states, unless its words say the state holds
    ("HOSPITAL COURSE: ,She received heparin.  She developed a rash.", "heparin", "rash"),
    # a plan is what is to come
    ("PLAN: ,Start metoprolol.,ASSESSMENT: ,Atrial fibrillation.", "metoprolol", "Atrial fibrillation"),
    # a perfect without how long it lasted, or of counted events, tells no state lasting now
    ("HISTORY OF PRESENT ILLNESS: ,She has had fever and chills.", "fever", "chills"),
    ("HISTORY OF PRESENT ILLNESS: ,He has had two strokes and a seizure since 2010.", "strokes", "seizure"),
    # a state that lasted, then ended, is past
    ("HISTORY OF PRESENT ILLNESS: ,She has had cough and fever for a week, which has now resolved.", "cough",
     "fever"),
    ("HISTORY OF PRESENT ILLNESS: ,He had fever and chills for 2 days.", "fever", "chills"),
    # "has" with a past participle, a history or a count after it, or "to have", tells no present state
    ("HISTORY OF PRESENT ILLNESS: ,He has undergone a cholecystectomy and takes omeprazole.", "cholecystectomy",
     "omeprazole"),
    ("HISTORY OF PRESENT ILLNESS: ,She has a history of gout and takes allopurinol.", "gout", "allopurinol"),
    ("HISTORY OF PRESENT ILLNESS: ,She has two prior strokes and takes aspirin.", "strokes", "aspirin"),
    ("HISTORY OF PRESENT ILLNESS: ,This morning she was noted to have a rash.  She takes aspirin.", "rash", "aspirin"),
])
def test_not_both_current(text, first, second):
    assert both_current(text, span(text, first), span(text, second)) is None


def test_present_words_reach_only_their_own_clause():
    text = "HOSPITAL COURSE: ,She is on insulin and was given a transfusion."
    assert present_basis(text, span(text, "insulin")) is not None
    assert present_basis(text, span(text, "transfusion")) is None


def test_a_forged_present_basis_is_refused():
    text = "PHYSICAL EXAMINATION: ,Lungs: scattered wheezes.,ASSESSMENT: ,Asthma exacerbation."
    found = find_relation(text, span(text, "wheezes"), span(text, "Asthma exacerbation"))
    assert found is not None and check_order(text, found)
    moved = text.replace("ASSESSMENT", "PLAN      ")
    from dataclasses import replace
    assert not check_order(moved, replace(found, cue=moved[found.cue_start:found.cue_end]))
