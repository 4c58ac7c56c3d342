"""Note mentions as evidence, end to end through the default controller (issues 2 and 3).

A note's date bounds when something was documented, not when it happened: negated,
historical, hypothetical and family mentions never ground an event; an affirmed mention
grounds it, with an occurrence time only where the sentence states one.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from medeventgraph.api import load, select_patient
from medeventgraph.core.answer import verify_query
from medeventgraph.core.evidence.timing import Timing, compare, span_of
from medeventgraph.core.index.patient_index import build_index
from medeventgraph.core.query.model import RelationType, VerificationQuery
from medeventgraph.model.occurrence import EventTime, Granularity, TimeType
from medeventgraph.model.settings import Settings

from .conftest import note_record_resources

P = {"reference": "Patient/p"}
ENC = {"reference": "Encounter/e"}


def _bundle(note_text: str, note_date: str = "2024-01-03T10:00:00Z", aki_condition: bool = False) -> dict:
    resources = note_record_resources(note_text, drug="vancomycin 1 g IV", drug_id="vanc",
                                      given="2024-01-01T08:00:00Z", note_date=note_date)
    if aki_condition:
        resources.append({"resourceType": "Condition", "id": "aki", "subject": P, "encounter": ENC,
                          "code": {"text": "Acute kidney injury"}, "onsetDateTime": "2024-01-04T09:00:00Z"})
    return {"resourceType": "Bundle", "type": "collection", "entry": [{"resource": r} for r in resources]}


def _query(first: str, second: str, within: str | None = "P7D") -> VerificationQuery:
    rel = {"from": "a", "to": "b", "type": "before"} | ({"within": within} if within else {})
    return VerificationQuery.model_validate({
        "id": "q",
        "events": [{"id": "a", "text": first}, {"id": "b", "text": second}],
        "relations": [rel],
        "scope": "encounter",
    })


@pytest.fixture(scope="module")
def run(note_pipeline):
    def verdict(bundle: dict, query: VerificationQuery):
        settings = Settings()
        index = build_index(select_patient(load(bundle, settings=settings), None), settings, notes=note_pipeline)
        return verify_query(index, query, settings)

    return verdict


@pytest.mark.parametrize(
    "sentence",
    [
        "Assessment: no signs of acute kidney injury on 2024-01-03.",
        "Creatinine stable; patient is negative for acute kidney injury.",
        "Past Medical History:\nacute kidney injury in 2019.\n",
        "Family History:\nMother had acute kidney injury.\n",
        "Plan: monitor for acute kidney injury.",
    ],
)
def test_negated_historical_family_hypothetical_mentions_never_support(run, sentence):
    v = run(_bundle(sentence), _query("vancomycin", "acute kidney injury"))
    assert v.verdict.value != "supported", sentence
    notes = [e for e in v.evidence if e.origin == "note"]
    assert all(e.polarity != "supports" for e in notes)


def test_a_negated_mention_in_the_window_refutes(run):
    v = run(_bundle("Assessment: no acute kidney injury."), _query("vancomycin", "acute kidney injury"))
    assert v.verdict.value == "refuted" and v.failure.value == "negated"
    assert any(c.startswith("DocumentReference/note#s") for c in v.citations)


def test_a_timeless_denial_beside_an_affirmed_episode_is_no_documented_absence(run):
    # The note tells the rash after vancomycin, then denies it at the time of writing: the rash
    # happened; its absence now is no absence where the relation puts it.
    told = "Hospital course: After vancomycin was started she developed a rash.  On examination there is no rash."
    v = run(_bundle(told), _query("vancomycin", "rash", None))
    assert v.verdict.value == "supported"
    # only hedged ("concern for"), the affirmation does not outweigh the denial
    hedged = "Hospital course: There was concern for a rash after vancomycin.  On examination there is no rash."
    assert run(_bundle(hedged), _query("vancomycin", "rash", None)).verdict.value in ("refuted", "conflicting")
    # with a time of its own, a denial in the window still counts against
    dated = "Hospital course: After vancomycin was started she developed a rash.  On 2024-01-02 there was no rash."
    assert run(_bundle(dated), _query("vancomycin", "rash", None)).verdict.value != "supported"


def test_affirmed_mention_with_a_stated_time_supports(run):
    v = run(_bundle("Assessment: acute kidney injury on 2024-01-03."), _query("vancomycin", "acute kidney injury"))
    assert v.verdict.value == "supported"
    [note] = [e for e in v.evidence if e.polarity == "supports" and e.origin == "note"]
    assert note.time.granularity == "day" and note.time.start.startswith("2024-01-03")
    start, end = note.source.start, note.source.end
    assert end - start == len("acute kidney injury")


def test_note_date_alone_cannot_place_the_event_after_the_drug(run):
    # The note (day 3) affirms AKI without saying when it began: it may predate vancomycin.
    v = run(_bundle("Assessment: acute kidney injury."), _query("vancomycin", "acute kidney injury"))
    assert v.verdict.value == "insufficient"


def test_note_date_bound_can_place_the_event_before_a_later_one(run):
    # "vancomycin given" documented by day 3 at the latest; the AKI Condition starts day 4.
    v = run(_bundle("Vancomycin was given.", aki_condition=True), _query("vancomycin", "acute kidney injury", None))
    assert v.verdict.value == "supported"


def _t(day: int, hour: int, granularity: Granularity) -> EventTime:
    return EventTime(datetime(2024, 1, day, hour, tzinfo=UTC), None, TimeType.OCCURRENCE, granularity)


def test_same_day_at_day_granularity_is_unknown_not_before():
    a, b = span_of(_t(3, 0, Granularity.DAY)), span_of(_t(3, 0, Granularity.DAY))
    assert compare(a, b, RelationType.BEFORE, None).timing is Timing.UNKNOWN
    a, b = span_of(_t(3, 0, Granularity.DAY)), span_of(_t(4, 0, Granularity.DAY))
    assert compare(a, b, RelationType.BEFORE, None).timing is Timing.COMPATIBLE
    assert compare(b, a, RelationType.BEFORE, None).timing is Timing.INCOMPATIBLE
    a, b = span_of(_t(3, 8, Granularity.SECOND)), span_of(_t(3, 9, Granularity.SECOND))
    assert compare(a, b, RelationType.AFTER, None).timing is Timing.INCOMPATIBLE


def test_bound_only_times_never_refute():
    doc = EventTime(datetime(2024, 1, 5, tzinfo=UTC), None, TimeType.DOCUMENTATION, Granularity.SECOND)
    bounded = span_of(EventTime(None), doc)
    later = span_of(_t(6, 0, Granularity.SECOND))
    earlier = span_of(_t(1, 0, Granularity.SECOND))
    assert compare(bounded, later, RelationType.BEFORE, None).timing is Timing.COMPATIBLE
    assert compare(earlier, bounded, RelationType.BEFORE, None).timing is Timing.UNKNOWN
    assert compare(later, bounded, RelationType.BEFORE, None).timing is Timing.UNKNOWN


def test_a_later_mention_of_an_open_recorded_episode_does_not_time_its_onset(run):
    # Issue 12 / T9-60e42eefbc11: the Condition began before vancomycin; a later sentence names
    # it beside another event's time ("... attributed to acute kidney injury, and death was
    # confirmed at ..."). That sentence says the condition was present then, not that it began.
    bundle = _bundle("Terminal course: deterioration attributed to acute kidney injury, "
                     "and death was confirmed at 2024-01-06 10:00.", note_date="2024-01-06T11:00:00Z")
    aki = {"resourceType": "Condition", "id": "aki", "subject": P, "encounter": ENC,
           "code": {"text": "Acute kidney injury"}, "onsetDateTime": "2024-01-01T07:00:00Z"}
    bundle["entry"].append({"resource": aki})
    v = run(bundle, _query("vancomycin", "acute kidney injury", None))
    assert v.verdict.value == "refuted" and v.failure.value == "opposite_order"
    mention = next(e for e in v.evidence if e.origin == "note")
    assert mention.time.start.startswith("2024-01-06")  # the sentence's time is kept, it just cannot time the onset


@pytest.mark.parametrize(("first", "second", "verdict"), [
    ("fever", "cough", "supported"),
    ("cough", "fever", "refuted"),
])
def test_how_long_each_complaint_has_lasted_orders_their_onsets(run, first, second, verdict):
    # written for this test: the counts of a list each time their own complaint
    note = "HISTORY OF PRESENT ILLNESS: She has had 3 days of fever and 1 day of cough."
    v = run(_bundle(note), _query(first, second, None))
    assert v.verdict.value == verdict
    words = {e.time.words for e in v.evidence if e.origin == "note" and e.kind != "relation"}
    assert words == {"3 days of", "1 day of"}
