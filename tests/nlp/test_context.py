"""ConText categories on sentences we write, section-driven flags, and span/occurrence shape."""

from __future__ import annotations

import pytest
from medeventgraph.model.occurrence import Assertion, Granularity, Kind, Origin, TimeType
from medeventgraph.nlp import TargetTerm

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


def test_a_semicolon_ends_a_cues_scope(pipeline):
    # a result word of another clause's test does not deny the finding told before the semicolon
    occs = pipeline.mentions([make_note("He had AKI; the ultrasound was negative.")], AKI_TERMS)
    assert [(o.extra_value("literal"), o.assertion.negated) for o in occs] == [("AKI", False)]


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
    from medeventgraph.model.occurrence import NoteDocument, NoteText

    base = make_note("x")
    note = NoteDocument("DiagnosticReport", "r1", base.patient, base.encounter, base.date,
                        (NoteText(0, "text/plain", "Nothing."), NoteText(1, "text/plain", "AKI noted.")))
    (occ,) = pipeline.mentions([note], AKI_TERMS)
    assert occ.id == "DiagnosticReport/r1#a1s0-3"
    assert occ.source.json_path == "presentedForm[1].data"


def test_first_term_wins_and_alternatives_kept(pipeline):
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


# --- hypothetical and historical from modality, plan sections and time (sentences written for
# these tests, none taken from the kit or the MTSamples labels) -----------------------------------

def _term(literal: str, kind: Kind) -> TargetTerm:
    return TargetTerm(literal, literal, kind, "query")


TERMS = (
    _term("heparin", Kind.MEDICATION), _term("warfarin", Kind.MEDICATION), _term("aspirin", Kind.MEDICATION),
    _term("metoprolol", Kind.MEDICATION), _term("cefazolin", Kind.MEDICATION),
    _term("colonoscopy", Kind.PROCEDURE), _term("dialysis", Kind.PROCEDURE), _term("MRI", Kind.PROCEDURE),
    _term("CBC", Kind.LAB),
    _term("DVT", Kind.CONDITION), _term("rash", Kind.CONDITION), _term("bleeding", Kind.CONDITION),
    _term("chest pain", Kind.CONDITION), _term("stroke", Kind.CONDITION), _term("asthma", Kind.CONDITION),
    _term("appendicitis", Kind.CONDITION), _term("fever", Kind.CONDITION), _term("diabetes", Kind.CONDITION),
    _term("myocardial infarction", Kind.CONDITION), _term("anemia", Kind.CONDITION),
)
PLANNED = Assertion(hypothetical=True)
PAST = Assertion(historical=True)


def _read(pipeline, text: str) -> dict[str, Assertion]:
    """Literal (lower case) -> assertion of each mention of TERMS in the text."""
    return {o.extra_value("literal").lower(): o.assertion for o in pipeline.mentions([make_note(text)], TERMS)}


def _lower(expected: dict[str, Assertion]) -> dict[str, Assertion]:
    return {k.lower(): v for k, v in expected.items()}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # future and deontic modality plans the act, never the problem it treats
        ("We will start heparin for the DVT.", {"heparin": PLANNED, "DVT": NONE}),
        ("She would benefit from dialysis.", {"dialysis": PLANNED}),
        ("We are going to obtain an MRI of the spine.", {"MRI": PLANNED}),
        ("He should undergo colonoscopy given the anemia.", {"colonoscopy": PLANNED, "anemia": NONE}),
        ("Consider metoprolol for rate control.", {"metoprolol": PLANNED}),
        # a stated act ends a planned one's scope
        ("She was given aspirin and we will start heparin tomorrow.", {"aspirin": NONE, "heparin": PLANNED}),
        ("Heparin was started on arrival.", {"heparin": NONE}),
        # a condition that may not hold is hypothetical, whatever its type
        ("Stop the cefazolin if a rash appears.", {"rash": PLANNED, "cefazolin": NONE}),
        ("In the event of chest pain, she knows to use the nitroglycerin.", {"chest pain": PLANNED}),
        ("Keep taking aspirin unless bleeding occurs.", {"aspirin": NONE, "bleeding": PLANNED}),
        ("He is at increased risk of stroke.", {"stroke": PLANNED}),
        ("Heparin was started to prevent DVT.", {"heparin": NONE, "DVT": PLANNED}),
        ("Risk factors include diabetes.", {"diabetes": NONE}),  # an exception of the 'risk' cue
    ],
)
def test_modality(pipeline, text, expected):
    assert _read(pipeline, text) == _lower(expected)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a plan plans its acts; the problems it names are there
        ("PLAN:\nStart heparin.\nAnemia, check a CBC in the morning.\n",
         {"heparin": PLANNED, "anemia": NONE, "CBC": PLANNED}),
        ("Recommendations:\nColonoscopy in six weeks.\n", {"colonoscopy": PLANNED}),
        ("Follow-up:\nMRI of the brain in three months.\n", {"MRI": PLANNED}),
        # a plan line stating a drug being given is a fact
        ("PLAN:\nContinue metoprolol.\n", {"metoprolol": NONE}),
        # instructions name symptoms that may come, whatever their type
        ("Discharge Instructions:\nFever or bleeding from the wound.\n", {"fever": PLANNED, "bleeding": PLANNED}),
        # the same words outside a plan state what happened
        ("Hospital Course:\nHeparin was given. Colonoscopy showed diverticulosis.\n",
         {"heparin": NONE, "colonoscopy": NONE}),
    ],
)
def test_plan_sections(pipeline, text, expected):
    assert _read(pipeline, text) == _lower(expected)


@pytest.mark.parametrize("text", [
    "Hospital Course: She had anemia.  Start heparin.",  # two spaces: spaCy starts the sentence on the second
    "Hospital Course: She had anemia. Start heparin.",
    "Hospital Course: She had anemia.\n\n  Start heparin.",
])
def test_an_imperative_order_after_any_white_space_starts_its_sentence(pipeline, text):
    assert _read(pipeline, text) == _lower({"anemia": NONE, "heparin": PLANNED})


def test_a_value_stated_in_a_plan_was_measured(pipeline):
    (value,) = pipeline.values([make_note("PLAN:\nPotassium 6.1, will recheck after the insulin.\n")])
    assert value.value.quantity == 6.1 and value.assertion == NONE


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a stated time two weeks or more before the note dates a past finding
        ("He had a stroke 3 years ago.", {"stroke": PAST}),
        ("Three years ago he had a myocardial infarction.", {"myocardial infarction": PAST}),
        ("She had an appendicitis in 1998 and now presents with fever.", {"appendicitis": PAST, "fever": NONE}),
        ("She had asthma as a child.", {"asthma": PAST}),
        ("Diabetes for the past 20 years.", {"diabetes": PAST}),
        ("Known diabetes for many years.", {"diabetes": PAST}),
        ("History of stroke, now with chest pain.", {"stroke": PAST, "chest pain": NONE}),
        # this presentation's words end a history cue's scope
        ("A history of asthma, admitted with chest pain.", {"asthma": PAST, "chest pain": NONE}),
        ("She has a history of stroke and presented with fever.", {"stroke": PAST, "fever": NONE}),
        ("History of diabetes, came in for a rash.", {"diabetes": PAST, "rash": NONE}),
        # this encounter's spans are not history
        ("Fever 2 days ago, rash since yesterday.", {"fever": NONE, "rash": NONE}),
        ("A two-day history of fever.", {"fever": NONE}),
        ("Chest pain for 3 hours.", {"chest pain": NONE}),
    ],
)
def test_time(pipeline, text, expected):
    assert _read(pipeline, text) == _lower(expected)


@pytest.mark.parametrize(("text", "term", "timed"), [
    # a past history is not dated by a time of this stay told in another clause of its sentence
    ("History of stroke, also yesterday she noted a rash.", "stroke", False),
    ("History of stroke, also yesterday she noted a rash.", "rash", True),
    ("She has a history of asthma and had a fever yesterday.", "asthma", False),
    # in its own clause the time is the act's own: it was recent ("status post" is a past marker)
    ("Status post colonoscopy earlier today.", "colonoscopy", True),
    # a time two weeks or more before the note can date a past history, in any clause
    ("History of stroke, treated with heparin in 2015.", "stroke", True),
])
def test_a_past_history_takes_no_time_of_this_stay_from_another_clause(pipeline, text, term, timed):
    (occ,) = [o for o in pipeline.mentions([make_note(text)], TERMS) if o.extra_value("literal").lower() == term]
    assert occ.time.resolved is timed, occ.time


def test_rule_file_is_checked_when_loaded():
    from medeventgraph.nlp.rules import context_specs_from_json

    good = {"classes": {"c": "a class"}, "rules": [{"literal": "zz", "category": "HYPOTHETICAL",
                                                   "direction": "FORWARD", "class": "c", "kinds": ["medication"],
                                                   "exceptions": ["zz top"]}]}
    (spec,) = context_specs_from_json(good)
    main, exception = spec.to_rules()
    assert main.allowed_types == {"MEDICATION", "UNKNOWN"} and exception.direction == "PSEUDO"
    assert (exception.metadata or {})["rule"] == "zz"
    bad_kind = {**good, "rules": [{**good["rules"][0], "kinds": ["drug"]}]}
    bad_class = {**good, "rules": [{**good["rules"][0], "class": "nope"}]}
    twice = {**good, "rules": [good["rules"][0], good["rules"][0]]}
    for data in (bad_kind, bad_class, twice):
        with pytest.raises(ValueError):
            context_specs_from_json(data)


# --- the leave-one-report-out check (benchmarks/check_assertion_rules.py) on rows written here ----

@pytest.fixture(scope="module")
def rule_check():
    import sys
    from pathlib import Path

    benchmarks = str(Path(__file__).resolve().parents[2] / "benchmarks")
    sys.path.insert(0, benchmarks)
    try:
        import check_assertion_rules

        yield check_assertion_rules
    finally:
        sys.path.remove(benchmarks)


def _row(line: str, condition: str, sentence: str, *gold: str):
    from eval_assertions import Row

    return Row(line, condition, sentence, frozenset(gold))


def test_the_check_drops_a_rule_fitted_to_one_report(pipeline, rule_check):
    """A cue that fixes three targets of one sentence only ('zorbly', fitted) is dropped; one that
    fixes a target in each of three sentences ('lest') is kept; one that never fires is left alone,
    and one that fixes a row in one sentence but breaks rows in two others is dropped."""
    from medeventgraph.nlp.context import ModifierFinder, all_rules
    from medeventgraph.nlp.rules import context_specs_from_json

    rows = [
        _row("1", "fever", "Zorbly fever, cough and rash.", "hypothetical"),
        _row("2", "cough", "Zorbly fever, cough and rash.", "hypothetical"),
        _row("3", "rash", "Zorbly fever, cough and rash.", "hypothetical"),
        _row("4", "dehydration", "Give fluids lest dehydration develops.", "hypothetical"),
        _row("5", "swelling", "Keep the leg raised lest swelling returns.", "hypothetical"),
        _row("6", "a fall", "Use a walker lest a fall occurs.", "hypothetical"),
        _row("7", "pain", "Pain settled after the block.", "hypothetical"),
        _row("8", "nausea", "Nausea settled after ondansetron."),
        _row("9", "vomiting", "Vomiting settled overnight."),
    ]
    rules = {"classes": {"synthetic": "written for this test"}, "rules": [
        {"literal": "zorbly", "category": "HYPOTHETICAL", "direction": "FORWARD", "class": "synthetic"},
        {"literal": "lest", "category": "HYPOTHETICAL", "direction": "FORWARD", "class": "synthetic"},
        {"literal": "quuxly", "category": "HYPOTHETICAL", "direction": "FORWARD", "class": "synthetic"},
        {"literal": "settled", "category": "HYPOTHETICAL", "direction": "BACKWARD", "class": "synthetic"},
    ]}
    synthetic = [r for spec in context_specs_from_json(rules) for r in spec.to_rules()]
    finder = ModifierFinder(pipeline.nlp, [*all_rules(), *synthetic])
    result = rule_check.run(rows, pipeline, finder, synthetic)
    verdicts = {r["literal"]: r for r in result["rules"]}
    assert verdicts["zorbly"]["verdict"] == "fits one report" and verdicts["zorbly"]["best_unit_gain"] == 3
    assert verdicts["zorbly"]["held_out_gain"] == 0
    assert verdicts["lest"]["verdict"] == "kept" and verdicts["lest"]["units_gaining"] == 3
    assert verdicts["quuxly"]["verdict"] == "no effect"
    assert verdicts["settled"]["verdict"] == "fits one report" and verdicts["settled"]["held_out_gain"] == -2
    assert sorted(result["dropped"]) == ["settled", "zorbly"]
    assert verdicts["lest"]["round"] == 2  # judged again once the dropped rules were gone
    assert result["kit_units"] == 7  # one unit per sentence


# --- end to end: a planned drug grounds nothing, a started one does ---------------------------------

def _verify_order(pipeline, text: str) -> str:
    import base64
    import json
    from pathlib import Path

    from medeventgraph.api import load
    from medeventgraph.core.answer import verify_query
    from medeventgraph.core.index.patient_index import build_index
    from medeventgraph.core.query.model import VerificationQuery
    from medeventgraph.model.settings import Settings

    bundle = json.loads((Path(__file__).resolve().parents[1] / "data" / "mtsamples" / "mts-1430.json").read_text())
    for entry in bundle["entry"]:
        if entry["resource"]["resourceType"] == "DocumentReference":
            entry["resource"]["content"][0]["attachment"]["data"] = base64.b64encode(text.encode()).decode()
    settings = Settings(notes=True)
    index = build_index(load(bundle, settings=settings).for_patient("mts-1430"), settings, notes=pipeline)
    query = VerificationQuery.model_validate({
        "id": "q", "scope": "encounter",
        "events": [{"id": "drug", "text": "Lovenox", "kind": "medication"},
                   {"id": "bleed", "text": "bleeding", "kind": "condition"}],
        "relations": [{"from": "drug", "to": "bleed", "type": "before"}]})
    return verify_query(index, query, settings).verdict.value


@pytest.mark.parametrize(
    ("text", "supported"),
    [
        ("HOSPITAL COURSE:\nLovenox was started. Subsequently, she developed bleeding from the line site.\n", True),
        ("HOSPITAL COURSE:\nWe will start Lovenox. Subsequently, she developed bleeding from the line site.\n", False),
        ("PLAN:\nStart Lovenox. Subsequently, she developed bleeding from the line site.\n", False),
        ("PLAN:\nLovenox was started. Subsequently, she developed bleeding from the line site.\n", True),
    ],
)
def test_a_planned_drug_grounds_no_event(pipeline, text, supported):
    assert (_verify_order(pipeline, text) == "supported") is supported



@pytest.mark.parametrize(("text", "expected"), [
    # written for this test: a time ahead of the note plans what its own clause tells, with no modal verb
    ("Follow-up colonoscopy in 3 months.", {"colonoscopy": PLANNED}),
    ("MRI of the spine tomorrow.", {"MRI": PLANNED}),
    ("Recommendation is a repeat CBC next week.", {"CBC": PLANNED}),
    # another clause's plan, a course told in the past, a sentence that plans nothing: no plan
    ("She was given metoprolol, and follow-up is in 2 weeks.", {"metoprolol": NONE}),
    ("She was seen back in 2 weeks and the rash had resolved.", {"rash": NONE}),
    ("The rash resolved in 2 days.", {"rash": NONE}),
])
def test_a_time_ahead_of_the_note_plans_what_its_clause_tells(pipeline, text, expected):
    assert _read(pipeline, text) == _lower(expected)
    planned = [o for o in pipeline.mentions([make_note(text)], TERMS) if o.assertion.hypothetical]
    assert all(o.extra_value("planned_at") for o in planned)  # the words that made it a plan travel with it


DOUBTED = Assertion(negated=True, uncertain=True)


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("Pneumonia is unlikely.", {"Pneumonia": DOUBTED}),
        # 'but this' points back over the 'but' to the clause it judges
        ("The fever may have come from a pneumonia, but this is unlikely.", {"pneumonia": DOUBTED}),
        ("Her AKI might be from vancomycin, but that seems very unlikely.",
         {"AKI": DOUBTED, "vancomycin": DOUBTED}),
        # without its pointer a doubt stays in its own clause
        ("She had pneumonia, but AKI is unlikely.", {"pneumonia": NONE, "AKI": DOUBTED}),
    ],
)
def test_a_finding_told_as_unlikely_is_denied_with_doubt(pipeline, sentence, expected):
    occs = pipeline.mentions([make_note(sentence)], AKI_TERMS)
    assert {o.extra_value("literal"): o.assertion for o in occs} == expected


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        # a finding told after it as not seen, or absent
        ("On repeat imaging a pneumonia was not seen.", {"pneumonia": Assertion(negated=True)}),
        ("Pneumonia was absent on the second film.", {"pneumonia": Assertion(negated=True)}),
        # 'not seen' looks back at a finding only: the patient not seen by a service is no denial of what follows
        ("She was not seen by nephrology for her AKI.", {"aki": NONE}),
        # an act ordered and never given
        ("Vancomycin was ordered but never given.", {"vancomycin": Assertion(negated=True)}),
        ("Vancomycin never given per the MAR.", {"vancomycin": Assertion(negated=True)}),
        # an act only talked of
        ("Vancomycin was considered.", {"vancomycin": Assertion(hypothetical=True)}),
        ("Vancomycin was discussed with the family.", {"vancomycin": Assertion(hypothetical=True)}),
        # "resolved" denies what follows it, not what it resolved on or with
        ("Her AKI resolved on vancomycin.", {"aki": NONE, "vancomycin": NONE}),
        ("The pneumonia resolved with vancomycin.", {"pneumonia": NONE, "vancomycin": NONE}),
        ("Resolved pneumonia.", {"pneumonia": Assertion(negated=True)}),
        ("Her AKI resolved, and vancomycin was stopped.", {"aki": NONE, "vancomycin": NONE}),
        # a denial does not reach past a time or order word: what came after or until it was there
        ("No AKI after vancomycin.", {"aki": Assertion(negated=True), "vancomycin": NONE}),
        ("She had no pneumonia until vancomycin was started.", {"pneumonia": Assertion(negated=True), "vancomycin": NONE}),
        # no improvement in a problem: it goes on
        ("There was no improvement in her pneumonia.", {"pneumonia": NONE}),
        # a drug she could not receive was not given
        ("She was unable to receive vancomycin.", {"vancomycin": Assertion(negated=True)}),
        # the results of an act talked of: the act was done
        ("The results of her vancomycin level were discussed with the family.", {"vancomycin": NONE}),
        ("The findings of the creatinine were reviewed with her.", {"creatinine": NONE}),
        ("The risks of vancomycin were discussed.", {"vancomycin": Assertion(hypothetical=True)}),
        # what the patient is taught about or watched for may come
        ("She was counseled about AKI.", {"aki": Assertion(hypothetical=True)}),
        ("She was watched for pneumonia.", {"pneumonia": Assertion(hypothetical=True)}),
    ],
)
def test_what_was_not_seen_given_or_done_is_no_event(pipeline, sentence, expected):
    occs = pipeline.mentions([make_note(sentence)], AKI_TERMS)
    assert {str(o.extra_value("literal")).lower(): o.assertion for o in occs} == expected


UNCERTAIN = Assertion(uncertain=True)
FAMILY = Assertion(family=True)
NEGATED = Assertion(negated=True)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # "status post X": X happened before this encounter; the cue governs the words after it only
        ("He is status post colonoscopy and presents with chest pain.", {"colonoscopy": PAST, "chest pain": NONE}),
        ("Status post myocardial infarction with stenting.", {"myocardial infarction": PAST}),
        # "known" names an established diagnosis; after "her" or "the" it points back to what the note told
        ("She is known to have diabetes.", {"diabetes": PAST}),
        ("A man with known asthma presents with chest pain.", {"asthma": PAST, "chest pain": NONE}),
        ("He has no known diabetes.", {"diabetes": Assertion(negated=True, historical=True)}),
        ("Dialysis was delayed because of her known bleeding.", {"dialysis": NONE, "bleeding": NONE}),
        # "evaluate for X" asks whether X is there: possible, not denied (medspaCy's default reads a negation)
        ("Evaluate for DVT.", {"DVT": UNCERTAIN}),
        ("Doppler of the left leg to evaluate for DVT.", {"DVT": UNCERTAIN}),
        # what is presumed is not yet known; a few words on, the sentence tells something else
        ("He was given heparin for presumed DVT.", {"DVT": UNCERTAIN, "heparin": NONE}),
        ("Presumptive diagnosis of asthma.", {"asthma": UNCERTAIN}),
        ("The rash was presumably viral and the patient was later found to have had a stroke.",
         {"rash": NONE, "stroke": NONE}),
        # a relative who tells or acts is not who has the findings
        ("His wife states that he developed chest pain after dinner.", {"chest pain": NONE}),
        ("The family had wanted her transferred for the bleeding.", {"bleeding": NONE}),
        ("Her daughter noticed a rash on her back.", {"rash": NONE}),
        # a relative's own condition is still the relative's
        ("His mother had diabetes.", {"diabetes": FAMILY}),
        ("Her husband reports that her sister has asthma.", {"asthma": FAMILY}),
        # modal verbs put an act among possibilities, never the problem it treats; "May" the month is no modal
        ("We may obtain an MRI of the spine.", {"MRI": PLANNED}),
        ("The DVT could be treated with heparin.", {"DVT": NONE, "heparin": PLANNED}),
        ("He would like to avoid a colonoscopy.", {"colonoscopy": PLANNED}),
        # continuing a drug the patient is on plans its continuing, not the drug: it is given now
        ("We would continue heparin for now.", {"heparin": NONE}),
        ("We will start metoprolol and continue aspirin.", {"metoprolol": PLANNED, "aspirin": NONE}),
        # "concern for" makes a finding possible, not stated
        ("There is concern for DVT given the swelling.", {"DVT": Assertion(uncertain=True)}),
        # a wish puts an act among possibilities, never the problem that prompts it
        ("She wishes to have a colonoscopy because of the anemia.", {"colonoscopy": PLANNED, "anemia": NONE}),
        ("He wanted to stop the metoprolol.", {"metoprolol": PLANNED}),
        ("In May she was started on metoprolol.", {"metoprolol": NONE}),
        # an act the note says was not carried out; only acts ("the bleeding was cancelled" says nothing)
        ("The patient refused the colonoscopy because of the anemia.", {"colonoscopy": NEGATED, "anemia": NONE}),
        ("The MRI was cancelled.", {"MRI": NEGATED}),
        # "but" ends the scope of a cue kept to acts too (medspaCy would let it pass: another target type)
        ("The patient refused the colonoscopy, but an MRI was done.", {"colonoscopy": NEGATED, "MRI": NONE}),
        ("Dialysis was deferred.", {"dialysis": NEGATED}),
        ("A CBC was not drawn.", {"CBC": NEGATED}),
        ("Heparin was never given.", {"heparin": NEGATED}),
        ("She was not started on heparin because of the bleeding.", {"heparin": NEGATED, "bleeding": NONE}),
        ("She has never been on metoprolol.", {"metoprolol": NEGATED}),
        ("She never received heparin.", {"heparin": NEGATED}),
        # a person not given the act, or one who did not give it: the act follows the words
        ("She was not given heparin because of the bleeding.", {"heparin": NEGATED, "bleeding": NONE}),
        ("The patient was never given aspirin because of her asthma.", {"aspirin": NEGATED, "asthma": NONE}),
        ("She was not given heparin, but metoprolol was started.", {"heparin": NEGATED, "metoprolol": NONE}),
        ("We did not start heparin given the bleeding.", {"heparin": NEGATED, "bleeding": NONE}),
        ("He did not take his metoprolol and had a fall.", {"metoprolol": NEGATED}),
        # a problem told as what would be expected is no problem she had
        ("A rash would be expected with a faster infusion.", {"rash": PLANNED}),
        ("Her rash was worse than would be expected.", {"rash": NONE}),
        ("She was not treated with heparin, but metoprolol was started.", {"heparin": NEGATED, "metoprolol": NONE}),
        ("She was unable to tolerate the MRI.", {"MRI": NEGATED}),
        ("Heparin was withheld because of the bleeding.", {"heparin": NEGATED, "bleeding": NONE}),
        ("Metoprolol was avoided given the bradycardia.", {"metoprolol": NEGATED}),
        ("Dialysis was avoided with diuresis.", {"dialysis": NEGATED}),
        ("We avoided dialysis.", {"dialysis": NEGATED}),
        ("An MRI was contraindicated.", {"MRI": NEGATED}),
        ("Heparin was held for the procedure.", {"heparin": NONE}),  # a pause of what was given
        ("The family declined a colonoscopy.", {"colonoscopy": NEGATED}),
        ("Declined dialysis.", {"dialysis": NEGATED}),
        ("She has declined dialysis.", {"dialysis": NEGATED}),
        ("An MRI was attempted but unsuccessful.", {"MRI": NEGATED}),
        ("Her renal function declined, requiring dialysis.", {"dialysis": NONE}),  # a fall, not a refusal
        # planning words put the act in the future; a plan told in the past may have been carried out
        ("We plan to start heparin.", {"heparin": PLANNED}),
        ("The plan is for dialysis.", {"dialysis": PLANNED}),
        ("The plan was to remove the catheter; dialysis was started.", {"dialysis": NONE}),
        ("She is scheduled for a colonoscopy.", {"colonoscopy": PLANNED}),
        ("She was scheduled for a colonoscopy, which showed a polyp.", {"colonoscopy": NONE}),
        ("He is to undergo dialysis.", {"dialysis": PLANNED}),
        ("She is awaiting a colonoscopy.", {"colonoscopy": PLANNED}),
        # "cannot rule out X" leaves X possible; it does not deny it
        ("Cannot rule out DVT.", {"DVT": UNCERTAIN}),
        ("We can't rule out appendicitis.", {"appendicitis": UNCERTAIN}),
        ("DVT was ruled out.", {"DVT": NEGATED}),
        # a new clause with its own subject ends a cue's scope
        ("There was no fever, so we obtained an MRI.", {"fever": NEGATED, "MRI": NONE}),
        ("She denied chest pain and we obtained a CBC.", {"chest pain": NEGATED, "CBC": NONE}),
        # a new clause's terminator leaves the clause its own cue ("but was" of "but was not")
        ("She had chest pain but was not bleeding.", {"chest pain": NONE, "bleeding": NEGATED}),
        ("It was thought she might need dialysis and she was given heparin.", {"dialysis": PLANNED, "heparin": NONE}),
    ],
)
def test_cue_classes(pipeline, text, expected):
    assert _read(pipeline, text) == _lower(expected)
