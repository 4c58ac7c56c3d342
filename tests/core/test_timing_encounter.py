"""Encounter-bounded times in timing compatibility, and ICU stays in episode scope."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from medeventgraph.core.evidence.timing import Timing, compare, span_of
from medeventgraph.core.index.patient_index import episodes_of
from medeventgraph.core.query.model import RelationType
from medeventgraph.fhir_adapters.ingest import load_paths
from medeventgraph.model.occurrence import EventTime, Granularity, Kind, TimeType

MIMIC = Path(__file__).resolve().parents[1] / "data" / "mimic-iv-demo"


def _stay(start_day: int, end_day: int) -> EventTime:
    return EventTime(datetime(2024, 1, start_day, 8, tzinfo=UTC), datetime(2024, 1, end_day, 8, tzinfo=UTC),
                     TimeType.ENCOUNTER_BOUNDED, Granularity.MINUTE)


def test_separate_stays_order_their_items_one_stay_does_not():
    first, later, overlapping = span_of(_stay(1, 5)), span_of(_stay(10, 12)), span_of(_stay(4, 8))
    assert compare(first, later, RelationType.BEFORE, None).timing is Timing.COMPATIBLE
    assert compare(later, first, RelationType.BEFORE, None).timing is Timing.INCOMPATIBLE  # can refute
    assert compare(first, span_of(_stay(1, 5)), RelationType.BEFORE, None).timing is Timing.UNKNOWN
    assert compare(first, overlapping, RelationType.BEFORE, None).timing is Timing.UNKNOWN
    # a window is met only if it holds whatever the instants inside both stays
    assert compare(first, later, RelationType.BEFORE, timedelta(days=12)).timing is Timing.COMPATIBLE
    assert compare(first, later, RelationType.BEFORE, timedelta(days=7)).timing is Timing.UNKNOWN  # 5 to 11 days
    assert compare(first, later, RelationType.BEFORE, timedelta(days=2)).timing is Timing.INCOMPATIBLE


def test_an_open_stay_bounds_from_its_start_only():
    open_stay = span_of(EventTime(datetime(2024, 1, 10, 8, tzinfo=UTC), None, TimeType.ENCOUNTER_BOUNDED,
                                  Granularity.MINUTE))
    first = span_of(_stay(1, 5))
    assert compare(first, open_stay, RelationType.BEFORE, None).timing is Timing.COMPATIBLE
    assert compare(open_stay, first, RelationType.BEFORE, None).timing is Timing.INCOMPATIBLE
    assert compare(first, open_stay, RelationType.BEFORE, timedelta(days=30)).timing is Timing.UNKNOWN


def test_an_instant_inside_a_stay_is_not_ordered_against_it():
    stay = span_of(_stay(1, 5))
    inside = span_of(EventTime(datetime(2024, 1, 3, 9, tzinfo=UTC), None, TimeType.OCCURRENCE, Granularity.MINUTE))
    after = span_of(EventTime(datetime(2024, 1, 6, 9, tzinfo=UTC), None, TimeType.OCCURRENCE, Granularity.MINUTE))
    assert compare(stay, inside, RelationType.BEFORE, None).timing is Timing.UNKNOWN
    assert compare(stay, after, RelationType.BEFORE, None).timing is Timing.COMPATIBLE


def test_icu_stays_share_their_admissions_episode():
    occurrences = load_paths([MIMIC]).occurrences
    episodes = episodes_of(occurrences)
    stays = [o for o in occurrences if o.kind is Kind.ENCOUNTER and o.encounter != o.id]
    assert stays
    for stay in stays:
        assert episodes[stay.id] == episodes[stay.encounter]


def _date(day: int) -> EventTime:
    return EventTime(datetime(2008, 7, day, tzinfo=UTC), None, TimeType.OCCURRENCE, Granularity.DAY)


def test_a_window_of_whole_days_counts_whole_days_between_dates():
    # CQL's Date arithmetic: "days between 2008-07-09 and 2008-07-17" is 8, so the two dates are within P8D
    ninth, seventeenth = span_of(_date(9)), span_of(_date(17))
    assert compare(ninth, seventeenth, RelationType.BEFORE, timedelta(days=8)).timing is Timing.COMPATIBLE
    assert compare(seventeenth, ninth, RelationType.AFTER, timedelta(days=8)).timing is Timing.COMPATIBLE
    assert compare(ninth, seventeenth, RelationType.BEFORE, timedelta(days=7)).timing is Timing.INCOMPATIBLE
    # a window finer than a day cannot be judged in whole days: the instants inside the dates decide
    assert compare(ninth, seventeenth, RelationType.BEFORE, timedelta(days=8, hours=12)).timing is Timing.UNKNOWN
    # nor a date against an instant
    instant = span_of(EventTime(datetime(2008, 7, 17, 9, tzinfo=UTC), None, TimeType.OCCURRENCE, Granularity.MINUTE))
    assert compare(ninth, instant, RelationType.BEFORE, timedelta(days=8)).timing is Timing.UNKNOWN
    assert compare(ninth, instant, RelationType.BEFORE, timedelta(days=9)).timing is Timing.COMPATIBLE
