"""Derived findings from values notes state (issue #11 item 5): KDIGO rise, hyperkalemia,
hypotension and elevated lactate computed from note text, citing the note spans, never another
patient's, and a question answered end to end from a note that says "K 6.1"."""

from __future__ import annotations

import base64
import json
from datetime import UTC, datetime

import pytest
from medeventgraph.api import load, select_patient, verify_index
from medeventgraph.core.index.derive import derive_occurrences
from medeventgraph.core.index.patient_index import build_index
from medeventgraph.model.occurrence import (
    EventTime,
    Granularity,
    NoteDocument,
    NoteText,
    Occurrence,
    Origin,
    TimeType,
)
from medeventgraph.model.settings import Settings

from ..conftest import BUNDLED_DATA
from .conftest import note_record_resources

NOTE_DATE = datetime(2024, 1, 3, 10, 0, tzinfo=UTC)
REAL = {json.loads(line)["phrase"]: json.loads(line)["text"]
        for line in (BUNDLED_DATA / "mtsamples" / "value_sentences.jsonl").read_text(encoding="utf-8").splitlines()}


def _note(text: str, rid: str = "n1", patient: str = "p") -> NoteDocument:
    return NoteDocument("DocumentReference", rid, patient, "Encounter/e",
                        EventTime(start=NOTE_DATE, type=TimeType.DOCUMENTATION, granularity=Granularity.SECOND),
                        (NoteText(0, "text/plain", text),))


def _derive(pipeline, *docs: NoteDocument) -> tuple[list[Occurrence], dict[str, Occurrence]]:
    values = pipeline.values(list(docs))
    texts = {d.reference: d.texts[0].text for d in docs}
    derived = derive_occurrences(values)
    by_id = {o.id: o for o in values}
    for d in derived:  # every citation slices back to the words, in the value's own note
        assert d.origin is Origin.DERIVED and d.derived_from and set(d.derived_from) <= set(by_id)
        cited = texts[d.source.reference][d.source.start:d.source.end]
        assert cited == by_id[d.derived_from[-1]].extra_value("literal")
        assert all(by_id[s].patient == d.patient for s in d.derived_from)
    return derived, by_id


def _rules(derived: list[Occurrence]) -> list[str]:
    return [d.extra_value("rule") or "" for d in derived]


@pytest.mark.parametrize(("text", "rule", "cited"), [
    ("Labs: Na 139, K 6.1, Cr 1.1.", "hyperkalemia", "K 6.1"),
    (REAL["Sodium 138, potassium 6.1"], "hyperkalemia", "potassium 6.1"),
    (REAL["predialysis potassium was 6"], "hyperkalemia", "potassium was 6"),
    (REAL["systolic blood pressures have dropped to the 70s"], "hypotension-reading",
     "systolic blood pressures have dropped to the 70s"),
    (REAL["dipped down into the 60s systolic"], "hypotension-reading", "into the 60s systolic"),
    (REAL["the blood pressure was 82/45"], "hypotension-reading", "blood pressure was 82/45"),
    ("BP 80/40 on arrival.", "hypotension-reading", "BP 80/40"),
    ("Initial lactate of 4 in the ED.", "elevated-lactate", "lactate of 4"),
    # written for this test: the usual limits of fever, heart rate, potassium, sodium, glucose,
    # hemoglobin, white cells and platelets
    ("She spiked a temperature of 39.2.", "fever-reading", "temperature of 39.2"),
    ("Tmax 101.3, now afebrile.", "fever-reading", "Tmax 101.3"),
    ("Her heart rate was 130 on arrival.", "tachycardia-reading", "heart rate was 130"),
    ("Pulse 48 and regular.", "bradycardia-reading", "Pulse 48"),
    ("Potassium was 2.9 before repletion.", "hypokalemia", "Potassium was 2.9"),
    ("Sodium 124 on admission.", "hyponatremia", "Sodium 124"),
    ("Her glucose was 450.", "hyperglycemia", "glucose was 450"),
    ("Hemoglobin dropped to 7.2.", "anemia-value", "Hemoglobin dropped to 7.2"),
    ("WBC 18.4 with a left shift.", "leukocytosis", "WBC 18.4"),
    ("Platelets 42 on the second day.", "thrombocytopenia", "Platelets 42"),
    ("Her oxygen saturation was 84% on room air.", "hypoxemia-reading", "oxygen saturation was 84%"),
])
def test_limit_findings_cite_the_note_span(note_pipeline, text: str, rule: str, cited: str) -> None:
    derived, _ = _derive(note_pipeline, _note(text))
    hits = [d for d in derived if d.extra_value("rule") == rule]
    assert len(hits) == 1
    d = hits[0]
    assert text[d.source.start:d.source.end] == cited
    assert d.id == f"derived/{rule}/DocumentReference/n1#s{d.source.start}-{d.source.end}"
    assert d.documented is not None and d.documented.start == NOTE_DATE
    if any(w in text for w in ("This afternoon", "This morning")):  # the sentence states the day
        assert d.time.resolved and d.time.start.date() == NOTE_DATE.date()
    else:  # no stated time: the finding is bounded by the note date only, like the value
        assert not d.time.resolved


@pytest.mark.parametrize("text", [
    "SBP in the 90s overnight.",  # 90-99 is not below 90
    "SBP in the high 80s to 90s.",  # reads "high 80s" (87-89): below 90 - kept as the positive below
    REAL["Goal blood pressure would be less than 130/80"],
    "Will give kayexalate if K is 6.1 tomorrow.",
    "PAST MEDICAL HISTORY: , Hyperkalemia, K 6.8 at that time.\n",  # historical, no stated time
    "FAMILY HISTORY: , Mother with potassium 6.2 on dialysis.\n",
    "Lactate was not 4.1.",
    "K 4.9, lactate 1.8, BP 132/70.",
    "Heart rate 88, temperature 98.6, sodium 139, glucose 112, hemoglobin 13.1, WBC 7.2, platelets 250.",
    "Oxygen saturation 96% on room air; goal saturation above 88%.",
    "Her central venous oxygen saturation was 62%.",
])
def test_no_finding_without_a_measurement_past_the_limit(note_pipeline, text: str) -> None:
    derived, _ = _derive(note_pipeline, _note(text))
    expected = ["hypotension-reading"] if "high 80s" in text else []
    assert _rules(derived) == expected


@pytest.mark.parametrize(("text", "rise"), [
    ("Cr rose from 1.0 to 2.1.", "1 -> 2.1 mg/dL: 2.10x the earlier value, interval not stated, presumed"),
    (REAL["creatinine has gone from 2.1 to 4.2 overnight"], "2.1 -> 4.2 mg/dL: +2.10 mg/dL within 24 h (stated)"),
    (REAL["creatinine 1.5 up from 1.2 yesterday"], "1.2 -> 1.5 mg/dL: +0.30 mg/dL within 48 h (stated)"),
])
def test_stated_creatinine_rise_is_kdigo(note_pipeline, text: str, rise: str) -> None:
    derived, by_id = _derive(note_pipeline, _note(text))
    [kdigo] = [d for d in derived if d.extra_value("rule") == "kdigo-creatinine-rise"]
    assert kdigo.value is not None and kdigo.value.text == rise
    earlier, later = (by_id[i] for i in kdigo.derived_from)
    assert earlier.value.quantity < later.value.quantity
    assert later.extra_value("change_from") == earlier.id


def test_no_kdigo_from_a_fall_or_a_small_undated_rise(note_pipeline) -> None:
    fall, _ = _derive(note_pipeline, _note(REAL["creatinine 1.8 from 1.89 from 2.7"]))
    small, _ = _derive(note_pipeline, _note("Cr rose from 1.0 to 1.3."))  # +0.3 but no interval stated, 1.3x
    assert "kdigo-creatinine-rise" not in _rules(fall) + _rules(small)


def test_copied_values_derive_once(note_pipeline) -> None:
    text = "Labs this morning: K 6.1 mmol/L, lactate 4.1 mmol/L."
    first = _note(text, "first")
    twin = NoteDocument("DiagnosticReport", "twin", "p", "Encounter/e", first.date, (NoteText(0, "text/plain", text),))
    derived, _ = _derive(note_pipeline, first, twin)
    assert sorted(_rules(derived)) == ["elevated-lactate", "hyperkalemia"]
    assert all(d.source.reference == "DocumentReference/first" for d in derived)


def test_findings_never_cite_another_patient(note_pipeline) -> None:
    a = _note("K 6.1 this morning. Cr rose from 1.0 to 2.1.", "a", patient="pa")
    b = _note("K 6.4 this morning. Lactate of 5.", "b", patient="pb")
    derived, by_id = _derive(note_pipeline, a, b)
    assert {(d.patient, d.extra_value("rule")) for d in derived} == {
        ("pa", "hyperkalemia"), ("pa", "kdigo-creatinine-rise"), ("pb", "hyperkalemia"), ("pb", "elevated-lactate")}
    for d in derived:
        assert {by_id[s].source.reference for s in d.derived_from} == {f"DocumentReference/{d.patient[1:]}"}


# -- end to end: a question answered from a note that says "K 6.1" --------------------------------

NOTE = "Progress note.\nLabs this morning: Na 138, K 6.1, BUN 31, Cr 1.4.\nPlan: hold lisinopril, recheck BMP.\n"


def _record(note_text: str, *, lisinopril: str = "2024-01-01T08:00:00Z", other_patient_note: str | None = None) -> dict:
    resources = note_record_resources(note_text, drug="lisinopril 10 mg PO", drug_id="lis", given=lisinopril)
    if other_patient_note is not None:
        q = {"reference": "Patient/q"}
        resources += [
            {"resourceType": "Patient", "id": "q"},
            {"resourceType": "DocumentReference", "id": "qnote", "status": "current", "subject": q,
             "date": "2024-01-02T10:00:00Z",
             "content": [{"attachment": {"contentType": "text/plain",
                                         "data": base64.b64encode(other_patient_note.encode()).decode()}}]},
        ]
    return {"resourceType": "Bundle", "type": "collection", "entry": [{"resource": r} for r in resources]}


def _ask(note_pipeline, bundle: dict, question: str):
    settings = Settings()
    index = build_index(select_patient(load(bundle, settings=settings), "p"), settings, notes=note_pipeline)
    return verify_index(index, question, settings)


# In the derived finding's own words (lexicon: "potassium above 5.5"), and as the condition it
# indicates (derive_rules.json `indicates`; binding basis derived-finding, core/evidence/binding.py).
QUESTION = "Was a potassium above 5.5 documented after lisinopril?"
CONDITION_QUESTION = "Was hyperkalemia documented after starting lisinopril?"


@pytest.mark.parametrize("question", [QUESTION, CONDITION_QUESTION])
def test_hyperkalemia_after_lisinopril_from_a_note_value(note_pipeline, question: str) -> None:
    verdict = _ask(note_pipeline, _record(NOTE, other_patient_note="K 7.2 this morning."), question)
    assert verdict.verdict.value == "supported"
    derived = [e for e in verdict.evidence if e.origin == "derived" and e.polarity == "supports"]
    assert derived, [(e.occurrence, e.polarity) for e in verdict.evidence]
    for e in derived:
        cited = NOTE[e.source.start:e.source.end]
        assert e.source.reference == "DocumentReference/note" and cited == "K 6.1"
        assert e.derived_from == ["DocumentReference/note#s" + f"{e.source.start}-{e.source.end}"]
        assert e.occurrence in verdict.citations or any(c.startswith("DocumentReference/note") for c in verdict.citations)
    assert not any("qnote" in c for c in verdict.citations)


@pytest.mark.parametrize("question", [QUESTION, CONDITION_QUESTION])
def test_no_hyperkalemia_from_a_goal(note_pipeline, question: str) -> None:
    note = "Progress note.\nPlan: continue lisinopril, goal K < 5.0 and recheck K this morning.\n"
    verdict = _ask(note_pipeline, _record(note), question)
    assert verdict.verdict.value != "supported"
    assert not any(e.origin == "derived" for e in verdict.evidence)


def test_clinosim_note_findings_cite_their_patient_and_words(clinosim, note_pipeline) -> None:
    """Over every clinosim patient: findings derived from note values cite only that patient's
    notes, with spans that slice back to the value's words."""
    from_notes = 0
    for pid in clinosim.patient_ids():
        record = clinosim.for_patient(pid)
        documents = {d.reference: d for d in record.documents}
        values = note_pipeline.values(list(documents.values()))
        by_id = {o.id: o for o in values}
        for d in derive_occurrences(list(record.occurrences) + values):
            if d.source.reference not in documents:
                continue
            from_notes += 1
            own = {o.id: o for o in record.occurrences}
            assert d.patient == record.patient and set(d.derived_from) <= set(by_id) | set(own)
            assert all(own[s].patient == record.patient for s in d.derived_from if s in own)  # a record value as baseline
            for source in (s for s in d.derived_from if s in by_id):
                value = by_id[source]
                assert value.reference in documents and value.patient == record.patient
                text = documents[value.reference].texts[value.source.attachment or 0].text
                assert text[value.source.start:value.source.end] == value.extra_value("literal")
            trigger = by_id[d.derived_from[-1]]
            assert (d.source.start, d.source.end) == (trigger.source.start, trigger.source.end)
    assert from_notes >= 10


@pytest.mark.parametrize(("note", "question", "cited"), [
    ("Progress note.\nVitals this morning: heart rate 128, temperature 39.1.\n",
     "Was tachycardia documented after starting lisinopril?", "heart rate 128"),
    ("Progress note.\nVitals this morning: heart rate 128, temperature 39.1.\n",
     "Was fever documented after starting lisinopril?", "temperature 39.1"),
    ("Progress note.\nLabs this morning: sodium 126, glucose 96.\n",
     "Was hyponatremia documented after starting lisinopril?", "sodium 126"),
])
def test_a_condition_the_note_states_as_a_value(note_pipeline, note: str, question: str, cited: str) -> None:
    verdict = _ask(note_pipeline, _record(note), question)
    assert verdict.verdict.value == "supported"
    derived = [e for e in verdict.evidence if e.origin == "derived" and e.polarity == "supports"]
    assert [note[e.source.start:e.source.end] for e in derived] == [cited]


@pytest.mark.parametrize(("note", "first", "second", "verdict"), [
    # written for this test: a finding derived from a value is told where its value is
    ("HOSPITAL COURSE: On admission potassium was 6.1. Insulin and dextrose were given.",
     "hyperkalemia", "insulin", "supported"),
    ("HOSPITAL COURSE: On arrival BP was 80/40, and norepinephrine was then started.",
     "hypotension", "norepinephrine", "supported"),
    # a cue's reverse order refutes (the order of telling only ever supports)
    ("HOSPITAL COURSE: BP was 80/40 and subsequently norepinephrine was started.",
     "norepinephrine", "hypotension", "refuted"),
])
def test_a_finding_from_a_value_takes_the_order_its_value_is_told_in(note_pipeline, note, first, second, verdict):
    from medeventgraph.core.answer import verify_query
    from medeventgraph.core.query.model import VerificationQuery

    settings = Settings(notes=True)
    index = build_index(select_patient(load(_record(note), settings=settings), "p"), settings, notes=note_pipeline)
    query = VerificationQuery.model_validate({
        "id": "q", "events": [{"id": "a", "text": first}, {"id": "b", "text": second}],
        "relations": [{"from": "a", "to": "b", "type": "before"}]})
    v = verify_query(index, query, settings)
    assert v.verdict.value == verdict
    (relation,) = v.relations
    derived = next(e for e in v.evidence if e.origin == "derived")
    assert relation.stated and derived.occurrence in relation.pair
