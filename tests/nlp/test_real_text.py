"""Targets and assertions on real report sentences (NegEx/ConText kit rows in tests/data/negex-context,
see its ATTRIBUTION.md), and on the spellings real notes use; every span slices back to the words."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from medeventgraph.model.occurrence import Assertion, Kind
from medeventgraph.nlp import TargetTerm

from .conftest import make_note

KIT = Path(__file__).resolve().parents[1] / "data" / "negex-context" / "sentences.tsv"


def kit_rows() -> list[tuple[str, str, str, Assertion]]:
    with KIT.open(newline="", encoding="utf-8") as handle:
        reader = csv.reader(handle, delimiter="\t")
        next(reader)
        return [
            (line, condition, sentence,
             Assertion(negated=negation == "Negated", historical=temporality == "Historical",
                       hypothetical=temporality == "Not particular", family=experiencer != "Patient"))
            for line, condition, sentence, negation, temporality, experiencer in reader
        ]


def only_mention(pipeline, text: str, *terms: TargetTerm):
    found = pipeline.mentions([make_note(text)], list(terms))
    for m in found:
        assert text[m.source.start:m.source.end] == m.extra_value("literal")
    return found


@pytest.mark.parametrize(("line", "condition", "sentence", "gold"), kit_rows(), ids=lambda v: str(v)[:20])
def test_kit_sentence(pipeline, line, condition, sentence, gold):
    found = only_mention(pipeline, sentence, TargetTerm(condition, condition, None, "query"))
    assert found, f"row {line}: {condition!r} not found"
    assert found[0].assertion == gold


@pytest.mark.parametrize(
    ("text", "literal", "written"),
    [
        ("Pt developed acute  kidney\n injury on day 3.", "acute kidney injury", "acute  kidney\n injury"),
        ("INCISIONS ARE DRY AND   INTACT.", "dry and intact", "DRY AND   INTACT"),
        ("There is TRACE TRICUSPID   REGURGITATION.", "trace tricuspid regurgitation", "TRACE TRICUSPID   REGURGITATION"),
        ("Started piperacillin tazobactam overnight.", "piperacillin-tazobactam", "piperacillin tazobactam"),
        ("Changed to Pip-Tazo.", "pip/tazo", "Pip-Tazo"),
        ("any unusual   rashes, nausea", "unusual rash", "unusual   rashes"),
        ("He bled again from the site.", "bleed", "bled"),
        ("Two UTIs this year.", "UTI", "UTIs"),
        ("She has TOLERATED MINIMAL P.O.", "tolerated minimal p.o.", "TOLERATED MINIMAL P.O."),
        ("A left ventriculogram was then performed.", "left ventriculography", "left ventriculogram"),
        ("Venography of the left arm was done.", "venogram", "Venography"),
    ],
)
def test_found_as_written(pipeline, text, literal, written):
    (m,) = only_mention(pipeline, text, TargetTerm(literal, literal, Kind.CONDITION, "query"))
    assert text[m.source.start:m.source.end] == written


def test_short_abbreviations_need_their_capitals(pipeline):
    term = TargetTerm("mi", "myocardial infarction", Kind.CONDITION, "lexicon")
    assert [m.extra_value("literal") for m in only_mention(pipeline, "Prior MI in 2010. Walks 2 mi daily.", term)] \
        == ["MI"]


def test_no_match_across_a_sentence_end(pipeline):
    term = TargetTerm("kidney injury", "kidney injury", Kind.CONDITION, "query")
    assert only_mention(pipeline, "Left kidney. Injury to the spleen.", term) == []


@pytest.mark.parametrize(
    "text",
    [
        "Chronic intractable migraine without aura.",
        "Diagnosis: type 2 diabetes mellitus without complication.",
    ],
)
def test_a_cue_inside_the_target_modifies_nothing(pipeline, text):
    literal = "chronic intractable migraine without aura" if "migraine" in text else \
        "type 2 diabetes mellitus without complication"
    (m,) = only_mention(pipeline, text, TargetTerm(literal, literal, Kind.CONDITION, "query"))
    assert m.assertion == Assertion()


def test_a_cue_before_a_target_with_a_cue_inside_still_counts(pipeline):
    literal = "chronic intractable migraine without aura"
    (m,) = only_mention(pipeline, "No chronic intractable migraine without aura.",
                        TargetTerm(literal, literal, Kind.CONDITION, "query"))
    assert m.assertion == Assertion(negated=True)


AKI = TargetTerm("acute kidney injury", "acute kidney injury", Kind.CONDITION, "query")
PNA = TargetTerm("pneumonia", "pneumonia", Kind.CONDITION, "query")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("No acute kidney injury, but pneumonia is present.", {"acute kidney injury": True, "pneumonia": False}),
        ("No acute kidney injury; however, pneumonia on imaging.", {"acute kidney injury": True, "pneumonia": False}),
        ("Denies acute kidney injury and was treated for pneumonia.",
         {"acute kidney injury": True, "pneumonia": False}),
        ("No acute kidney injury. Pneumonia on imaging.", {"acute kidney injury": True, "Pneumonia": False}),
        # a verb of change after "and was" opens another clause, out of the negation's reach
        ("No acute kidney injury and became febrile with pneumonia.",
         {"acute kidney injury": True, "pneumonia": False}),
        ("No acute kidney injury and went on to develop pneumonia.", {"acute kidney injury": True, "pneumonia": False}),
        ("No acute kidney injury and began to have pneumonia symptoms.",
         {"acute kidney injury": True, "pneumonia": False}),
    ],
)
def test_negation_scope_terminators(pipeline, text, expected):
    found = only_mention(pipeline, text, AKI, PNA)
    assert {m.extra_value("literal"): m.assertion.negated for m in found} == expected


@pytest.mark.parametrize(
    ("heading", "expected"),
    [
        ("PAST MEDICAL HISTORY:", Assertion(historical=True)),
        ("PAST MEDICAL HISTORY", Assertion(historical=True)),
        ("Past medical history", Assertion(historical=True)),
        ("FAMILY HISTORY:", Assertion(family=True, historical=True)),
        ("FAMILY HISTORY", Assertion(family=True, historical=True)),
        ("SOCIAL HISTORY:", Assertion(historical=True)),
        ("ALLERGIES:", Assertion(historical=True)),
        ("ALLERGIES", Assertion(historical=True)),
        ("PLAN:", Assertion()),  # the problem a plan names is there; its drugs and tests are planned
        ("DISCHARGE INSTRUCTIONS:", Assertion(hypothetical=True)),
        ("ASSESSMENT AND PLAN:", Assertion()),
        ("HISTORY OF PRESENT ILLNESS:", Assertion()),
    ],
)
def test_section_headings_of_real_reports(pipeline, heading, expected):
    text = f"{heading}\nAcute kidney injury after contrast.\n"
    (m,) = only_mention(pipeline, text, AKI)
    assert m.assertion == expected


def test_capital_heading_run_into_its_text(pipeline):
    (m,) = only_mention(pipeline, "FAMILY HISTORY Acute kidney injury in her mother.\n", AKI)
    assert m.source.section == "family_history" and m.assertion.family


def test_a_day_history_is_not_a_past_event(pipeline):
    (m,) = only_mention(pipeline, "She presents with a two-day history of acute kidney injury.", AKI)
    assert m.assertion == Assertion()


# MTSamples report mts-3851 (sample transcriptions, CC0 per the Kaggle redistributor
# tboyle10/medicaltranscriptions; see ../shared/data/mtsamples/SOURCES.md), copied verbatim:
# the export flattens line breaks, so headings run in after ".,".
MTS_3851 = ("No rashes have been seen.,PAST MEDICAL HISTORY: , As noted above.  No hospitalizations, surgeries, "
            "allergies.,MEDICATIONS: , Xopenex.,IMMUNIZATIONS:,  Up-to-date.,BIRTH HISTORY:,  The child was full "
            "term, no complications, home with mom.  No surgeries.,FAMILY HISTORY: , Negative.,SOCIAL HISTORY: , "
            "No smokers or pets in the home.")


def test_run_in_headings_of_a_flattened_report(pipeline):
    terms = [TargetTerm("hospitalization", "hospitalization", None, "query"),
             TargetTerm("Xopenex", "levalbuterol", Kind.MEDICATION, "query"),
             TargetTerm("smoker", "tobacco use", None, "query")]
    got = {m.extra_value("literal"): (m.source.section, m.assertion) for m in only_mention(pipeline, MTS_3851, *terms)}
    assert got == {
        "hospitalizations": ("past_medical_history", Assertion(negated=True, historical=True)),
        "Xopenex": ("medications", Assertion()),
        "smokers": ("social_history", Assertion(negated=True, historical=True)),
    }



def test_a_capital_word_before_a_colon_mid_sentence_is_not_a_heading(pipeline):
    (m,) = only_mention(pipeline, "Discussed with her the PLAN: acute kidney injury work-up today.", AKI)
    assert (m.source.section, m.assertion) == (None, Assertion())


# Synthea's "## Plan" (verbatim from the bundle of DiagnosticReport da1f9d53 in tests/data/synthea):
# what was prescribed and the care plan placed are facts, not possibilities.
SYNTHEA_PLAN = ("## Plan\n\nThe patient was prescribed the following medications:\n- naproxen sodium 220 mg oral tablet\n"
                "The patient was placed on a careplan:\n- musculoskeletal care (regime/therapy)\n")
NAPROXEN = TargetTerm("naproxen", "naproxen", Kind.MEDICATION, "query")


def test_a_plan_stating_what_was_prescribed_is_not_hypothetical(pipeline):
    terms = [NAPROXEN, TargetTerm("musculoskeletal care", "musculoskeletal care", Kind.PROCEDURE, "query")]
    got = {m.extra_value("literal"): (m.source.section, m.assertion) for m in only_mention(pipeline, SYNTHEA_PLAN, *terms)}
    assert got == {"naproxen": ("plan", Assertion()), "musculoskeletal care": ("plan", Assertion())}


def test_a_plan_list_without_a_statement_of_what_was_done_stays_hypothetical(pipeline):
    text = "## Plan\n\nConsider the following medications:\n- naproxen sodium 220 mg oral tablet\n"
    (m,) = only_mention(pipeline, text, NAPROXEN)
    assert (m.source.section, m.assertion) == ("plan", Assertion(hypothetical=True))


def test_synthea_plan_medications_are_not_hypothetical(pipeline, synthea_notes):
    """Every medication a Synthea plan lists after 'was prescribed the following medications:'."""
    prescribed = [d for d in synthea_notes if any("was prescribed the following medications:" in t.text
                                                  for t in d.texts)][:20]
    assert prescribed
    found = [m for m in pipeline.mentions(prescribed, [NAPROXEN, TargetTerm("lisinopril", "lisinopril",
             Kind.MEDICATION, "query"), TargetTerm("acetaminophen", "acetaminophen", Kind.MEDICATION, "query")])
             if m.source.section == "plan"]
    assert found
    assert not any(m.assertion.hypothetical for m in found)
