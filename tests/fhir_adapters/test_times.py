from __future__ import annotations

from datetime import UTC, datetime

import pytest
from medeventgraph.fhir_adapters.times import (
    choice_time,
    coarser,
    instant_time,
    parse_fhir_time,
    period_time,
)
from medeventgraph.model.occurrence import Granularity, TimeType


@pytest.mark.parametrize(
    ("text", "expected", "gran"),
    [
        ("2015", datetime(2015, 1, 1, tzinfo=UTC), Granularity.YEAR),
        ("2015-02", datetime(2015, 2, 1, tzinfo=UTC), Granularity.MONTH),
        ("2015-02-03", datetime(2015, 2, 3, tzinfo=UTC), Granularity.DAY),
        ("2015-02-03T10:29:08+00:00", datetime(2015, 2, 3, 10, 29, 8, tzinfo=UTC), Granularity.SECOND),
        ("2015-02-03T10:29:08Z", datetime(2015, 2, 3, 10, 29, 8, tzinfo=UTC), Granularity.SECOND),
        ("2015-02-03T10:29:08.112+00:00", datetime(2015, 2, 3, 10, 29, 8, 112000, tzinfo=UTC), Granularity.SECOND),
        ("2024-06-22T12:09:04.613374Z", datetime(2024, 6, 22, 12, 9, 4, 613374, tzinfo=UTC), Granularity.SECOND),
        ("2024-06-22T12:09:04.6133749Z", datetime(2024, 6, 22, 12, 9, 4, 613374, tzinfo=UTC), Granularity.SECOND),
        # offsets are folded into UTC
        ("2015-02-03T10:29:08+02:00", datetime(2015, 2, 3, 8, 29, 8, tzinfo=UTC), Granularity.SECOND),
        ("2015-02-03T22:30:00-05:30", datetime(2015, 2, 4, 4, 0, 0, tzinfo=UTC), Granularity.SECOND),
        ("2015-02-03T10:29:08+0200", datetime(2015, 2, 3, 8, 29, 8, tzinfo=UTC), Granularity.SECOND),
        # no offset: taken as UTC
        ("2015-02-03T10:29:08", datetime(2015, 2, 3, 10, 29, 8, tzinfo=UTC), Granularity.SECOND),
        # tolerated partial times
        ("2015-02-03T10:29Z", datetime(2015, 2, 3, 10, 29, tzinfo=UTC), Granularity.MINUTE),
        ("2015-02-03T10", datetime(2015, 2, 3, 10, tzinfo=UTC), Granularity.HOUR),
    ],
)
def test_parse_valid(text, expected, gran):
    parsed = parse_fhir_time(text)
    assert parsed is not None
    dt, g = parsed
    assert dt == expected
    assert dt.tzinfo is not None and dt.utcoffset().total_seconds() == 0
    assert g is gran


@pytest.mark.parametrize(
    "text",
    ["", "yesterday", "2015-13-01", "2015-02-30", "15-02-03", "2015-02-03T25:00:00Z", "2015/02/03",
     "2015-02-03T10:29:08+25:00", None, 2015, {"start": "2015"}],
)
def test_parse_invalid(text):
    assert parse_fhir_time(text) is None


def test_parse_is_cached_and_stable():
    a = parse_fhir_time("2001-01-01T00:00:00Z")
    b = parse_fhir_time("2001-01-01T00:00:00Z")
    assert a == b


def test_instant_time_types():
    t = instant_time("2015-02-03", TimeType.DOCUMENTATION)
    assert t.type is TimeType.DOCUMENTATION
    assert t.granularity is Granularity.DAY
    assert t.end is None
    assert t.resolved
    assert t.start_window()[1] == datetime(2015, 2, 4, tzinfo=UTC)
    assert instant_time("nope") is None


def test_period_time():
    t = period_time({"start": "2015-02-03T10:00:00Z", "end": "2015-02-09"})
    assert t.start == datetime(2015, 2, 3, 10, tzinfo=UTC)
    assert t.end == datetime(2015, 2, 9, tzinfo=UTC)
    assert t.granularity is Granularity.DAY  # coarser of the two ends
    open_ = period_time({"start": "2015-02-03T10:00:00Z"})
    assert open_.end is None and open_.granularity is Granularity.SECOND
    assert period_time({"end": "2015-02-03"}) is None
    assert period_time({}) is None
    assert period_time("2015") is None


def test_coarser():
    assert coarser(Granularity.SECOND, Granularity.DAY) is Granularity.DAY
    assert coarser(Granularity.YEAR, Granularity.MONTH) is Granularity.YEAR


def test_choice_time_order_and_paths():
    c = choice_time({"effectiveDateTime": "2015-02-03T10:00:00Z"}, "effective")
    assert c.path == "effectiveDateTime" and c.time.granularity is Granularity.SECOND
    c = choice_time({"effectivePeriod": {"start": "2015-02-03", "end": "2015-02-04"}}, "effective")
    assert c.path == "effectivePeriod" and c.time.end is not None
    c = choice_time({"effectiveInstant": "2015-02-03T10:00:00.123Z"}, "effective")
    assert c.path == "effectiveInstant"
    c = choice_time({"onsetAge": {"value": 3}}, "onset")
    assert c.time is None and not c.invalid
    c = choice_time({"onsetDateTime": "not a date"}, "onset")
    assert c.time is None and c.invalid
    c = choice_time({"authoredOn": "2015-02-03"}, "authoredOn")
    assert c.path == "authoredOn" and c.time.granularity is Granularity.DAY
