"""ConText categories on sentences we write, section-driven flags, and span/occurrence shape."""

from __future__ import annotations

import pytest
from medeventgraph.occurrence import Assertion, Granularity, Kind, Origin, TimeType

from .conftest import AKI_TERMS, make_note

NONE = Assertion()
CASES = [
    # affirmed
    ("Patient presents with AKI.", "AKI", NONE),
    # negation: pre-cues, post-cues
    ("No signs of AKI.", "AKI", Assertion(negated=True)),
    ("Patient denies AKI.", "AKI", Assertion(negated=True)),
    ("Urinalysis is negative for AKI.", "AKI", Assertion(negated=True)),
    ("AKI was ruled out.", "AKI", Assertion(negated=True)),
    ("AKI is absent.", "AKI", Assertion(negated=True)),
    # pseudo-negation: "no increase" does not negate what follows
    ("No increase in creatinine since admission.", "creatinine", NONE),
    # uncertain, hypothetical, historical, family
    ("Possible AKI.", "AKI", Assertion(uncertain=True)),
    ("Suspected acute kidney injury.", "acute kidney injury", Assertion(uncertain=True)),
    ("Monitor for AKI.", "AKI", Assertion(hypothetical=True)),
    ("Patient is at risk for AKI.", "AKI", Assertion(hypothetical=True)),
    ("History of AKI.", "AKI", Assertion(historical=True)),
    ("Mother had AKI.", "AKI", Assertion(family=True)),
]


@pytest.mark.parametrize(("sentence", "literal", "expected"), CASES)
def test_context_category(pipeline, sentence, literal, expected):
    (occ,) = [o for o in pipeline.mentions([make_note(sentence)], AKI_TERMS) if o.extra_value("literal") == literal]
    assert occ.assertion == expected


def test_termination_by_but(pipeline):
    occs = pipeline.mentions([make_note("No AKI but pneumonia is present.")], AKI_TERMS)
    got = {o.extra_value("literal"): o.assertion.negated for o in occs}
    assert got == {"AKI": True, "pneumonia": False}


def test_negation_scope_stops_at_sentence_end(pipeline):
    occs = pipeline.mentions([make_note("No AKI. Pneumonia on imaging.")], AKI_TERMS)
    assert [(o.extra_value("literal"), o.assertion.negated) for o in occs] == [("AKI", True), ("Pneumonia", False)]


@pytest.mark.parametrize(
    ("text", "section", "expected"),
    [
        ("Past Medical History:\nAKI after contrast.\n", "past_medical_history", Assertion(historical=True)),
        ("# Past Medical History\nAKI after contrast.\n", "past_medical_history", Assertion(historical=True)),
        ("Family History:\nAKI in several relatives.\n", "family_history", Assertion(family=True, historical=True)),
        ("# Family History\nAKI.\n", "family_history", Assertion(family=True, historical=True)),
        ("# History of Present Illness\nAKI on arrival.\n", "history_of_present_illness", NONE),
        ("# Assessment and Plan\nAKI, likely prerenal.\n", "assessment_and_plan", NONE),
        ("Assessment and Plan: AKI improving.\n", "assessment_and_plan", NONE),
    ],
)
def test_section_semantics(pipeline, text, section, expected):
    (occ,) = pipeline.mentions([make_note(text)], AKI_TERMS)
    assert occ.source.section == section
    assert occ.extra_value("section") == section
    assert occ.assertion == expected


def test_heading_words_are_not_mentions(pipeline):
    terms = [*AKI_TERMS]
    from medeventgraph.nlp import TargetTerm

    terms.append(TargetTerm("medications", "medications", None))
    occs = pipeline.mentions([make_note("# Medications\nvancomycin 1 g IV.\n")], terms)
    assert [o.extra_value("literal") for o in occs] == ["vancomycin"]


def test_occurrence_shape(pipeline):
    text = "Assessment: Vancomycin given yesterday. Now AKI on 2020-05-14, creatinine rising."
    note = make_note(text, "doc9")
    occs = pipeline.mentions([note], AKI_TERMS)
    assert [o.extra_value("literal") for o in occs] == ["Vancomycin", "AKI", "creatinine"]
    vanco, aki, creat = occs
    for o in occs:
        assert text[o.source.start:o.source.end] == o.extra_value("literal")
        assert o.id == f"DocumentReference/doc9#s{o.source.start}-{o.source.end}"
        assert o.origin is Origin.NOTE
        assert o.patient == "Patient/p1" and o.encounter == "Encounter/e1"
        assert o.source.json_path == "content[0].attachment.data" and o.source.attachment == 0
        assert o.documented.type is TimeType.DOCUMENTATION and o.documented.start == note.date.start
        s0, s1 = int(o.extra_value("sentence_start")), int(o.extra_value("sentence_end"))
        assert text[s0:s1] == o.text
    assert vanco.kind is Kind.MEDICATION and vanco.concept.text == "vancomycin"
    assert aki.concept.text == "acute kidney injury" and aki.kind is Kind.CONDITION
    assert vanco.time.granularity is Granularity.DAY and vanco.time.start.day == 14
    assert aki.time.granularity is Granularity.DAY and aki.time.start.isoformat().startswith("2020-05-14")
    assert creat.time.start.day == 14  # same sentence as the date


def test_unstated_time_is_unknown_not_note_date(pipeline):
    (occ,) = pipeline.mentions([make_note("Patient with AKI.")], AKI_TERMS)
    assert occ.time.start is None and occ.time.granularity is Granularity.UNKNOWN
    assert occ.time.type is TimeType.OCCURRENCE
    assert occ.documented.start is not None


def test_attachment_index_in_id(pipeline):
    from medeventgraph.occurrence import NoteDocument, NoteText

    base = make_note("x")
    note = NoteDocument("DiagnosticReport", "r1", base.patient, base.encounter, base.date,
                        (NoteText(0, "text/plain", "Nothing."), NoteText(1, "text/plain", "AKI noted.")))
    (occ,) = pipeline.mentions([note], AKI_TERMS)
    assert occ.id == "DiagnosticReport/r1#a1s0-3"
    assert occ.source.json_path == "presentedForm[1].data"


def test_first_term_wins_and_alternatives_kept(pipeline):
    from medeventgraph.nlp import TargetTerm

    terms = [TargetTerm("AKI", "acute kidney injury", Kind.CONDITION, "query"),
             TargetTerm("aki", "acute renal failure", Kind.CONDITION, "record")]
    (occ,) = pipeline.mentions([make_note("AKI.")], terms)
    assert occ.concept.text == "acute kidney injury"
    assert occ.extra_value("alt_concept") == "acute renal failure"


def test_longest_match_wins(pipeline):
    occs = pipeline.mentions([make_note("Acute kidney injury resolved.")],
                             [*AKI_TERMS, *__import__("medeventgraph.nlp").nlp.terms_from_display(
                                 "kidney injury", Kind.CONDITION)])
    assert [o.extra_value("literal") for o in occs] == ["Acute kidney injury"]
