"""Relative and explicit date resolution (pure functions)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from medeventgraph.model.occurrence import Granularity
from medeventgraph.nlp import find_times, resolve_relative

ANCHOR = datetime(2020, 5, 15, 9, 30, tzinfo=UTC)


@pytest.mark.parametrize(
    ("expression", "start", "granularity"),
    [
        ("yesterday", datetime(2020, 5, 14, tzinfo=UTC), Granularity.DAY),
        ("last night", datetime(2020, 5, 14, tzinfo=UTC), Granularity.DAY),
        ("today", datetime(2020, 5, 15, tzinfo=UTC), Granularity.DAY),
        ("2 days ago", datetime(2020, 5, 13, tzinfo=UTC), Granularity.DAY),
        ("two days ago", datetime(2020, 5, 13, tzinfo=UTC), Granularity.DAY),
        ("3 hours ago", datetime(2020, 5, 15, 6, tzinfo=UTC), Granularity.HOUR),
        ("4 months ago", datetime(2020, 1, 1, tzinfo=UTC), Granularity.MONTH),
        ("6 months ago", datetime(2019, 11, 1, tzinfo=UTC), Granularity.MONTH),
        ("5 years ago", datetime(2015, 1, 1, tzinfo=UTC), Granularity.YEAR),
    ],
)
def test_resolve_relative(expression, start, granularity):
    t = resolve_relative(expression, ANCHOR)
    assert t is not None and t.start == start and t.granularity is granularity
    lo, hi = t.start_window()
    truth = {"3 hours ago": ANCHOR - timedelta(hours=3)}.get(expression)
    if truth is not None:
        assert lo <= truth < hi


def test_relative_uses_the_notes_own_calendar_day():
    late_evening = datetime(2020, 5, 15, 23, 0, tzinfo=timezone(timedelta(hours=-5)))  # 04:00 UTC on the 16th
    assert resolve_relative("yesterday", late_evening).start == datetime(2020, 5, 14, tzinfo=UTC)


@pytest.mark.parametrize("expression", ["2 weeks ago", "recently", "a while ago", "tomorrow"])
def test_unresolvable(expression):
    assert resolve_relative(expression, ANCHOR) is None


def test_no_anchor_or_coarse_anchor():
    assert resolve_relative("yesterday", None) is None
    assert resolve_relative("yesterday", ANCHOR, Granularity.MONTH) is None
    assert resolve_relative("3 hours ago", ANCHOR, Granularity.DAY) is None
    assert resolve_relative("2 days ago", ANCHOR, Granularity.DAY) is not None


@pytest.mark.parametrize(
    ("sentence", "start", "granularity"),
    [
        ("AKI on 2015-02-03.", datetime(2015, 2, 3, tzinfo=UTC), Granularity.DAY),
        ("AKI on 02/03/2015.", datetime(2015, 2, 3, tzinfo=UTC), Granularity.DAY),
        ("Dose given on 2015-02-03 at 14:30.", datetime(2015, 2, 3, 14, 30, tzinfo=UTC), Granularity.MINUTE),
        ("History of AKI in 2019.", datetime(2019, 1, 1, tzinfo=UTC), Granularity.YEAR),
        ("Started in March 2019.", datetime(2019, 3, 1, tzinfo=UTC), Granularity.MONTH),
    ],
)
def test_explicit_dates(sentence, start, granularity):
    (t,) = find_times(sentence, ANCHOR)
    assert t.time.start == start and t.time.granularity is granularity
    assert sentence[t.start:t.end] == t.text


def test_invalid_and_bare_dates_do_not_resolve():
    assert find_times("AKI on 2015-02-30.", ANCHOR) == []
    assert find_times("2015-02-03", ANCHOR) == []  # a bare date line (Synthea's header) is not an event time
    assert find_times("insulin in 2000 units", ANCHOR) == []


def test_relative_times_past_the_ends_of_the_calendar_are_unresolved():
    assert resolve_relative("yesterday", datetime(1, 1, 1, 5, tzinfo=UTC)) is None
    assert resolve_relative("5 years ago", datetime(3, 1, 1, tzinfo=UTC)) is None
