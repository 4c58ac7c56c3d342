"""The CLI timeline's table speaks to people: human dates, entries in words, assertions in words."""

from datetime import UTC, datetime

from medeventgraph.model.occurrence import (
    AFFIRMED,
    Assertion,
    Concept,
    EventTime,
    Granularity,
    Kind,
    Occurrence,
    Origin,
    SourceRef,
    TimeType,
    Value,
)
from medeventgraph.wording.table import timeline_rows, timeline_table


def _occ(oid, rtype, kind, text, time, *, documented=None, value=None, assertion=AFFIRMED, origin=Origin.STRUCTURED):
    return Occurrence(f"{rtype}/{oid}", "p1", kind, origin, Concept((), text), time, SourceRef(rtype, oid),
                      value=value, assertion=assertion, documented=documented)


DAY = EventTime(datetime(2024, 1, 3, tzinfo=UTC), None, TimeType.DOCUMENTATION, Granularity.DAY)
OCCS = [
    _occ("m1", "MedicationAdministration", Kind.MEDICATION, "Vancomycin 1 g IV",
         EventTime(datetime(2024, 1, 2, 10, 5, tzinfo=UTC), None, TimeType.OCCURRENCE, Granularity.MINUTE)),
    _occ("c1", "Condition", Kind.CONDITION, "Acute kidney injury",
         EventTime(datetime(2024, 1, 1, tzinfo=UTC), datetime(2024, 1, 5, tzinfo=UTC), TimeType.ENCOUNTER_BOUNDED, Granularity.DAY)),
    _occ("o1", "Observation", Kind.LAB, "Creatinine",
         EventTime(datetime(2024, 1, 3, 6, 0, tzinfo=UTC), None, TimeType.OCCURRENCE, Granularity.MINUTE), value=Value(2.1, "mg/dL")),
    _occ("n1", "DocumentReference", Kind.CONDITION, "rash", EventTime(None), documented=DAY,
         assertion=Assertion(negated=True), origin=Origin.NOTE),
    _occ("n2", "DocumentReference", Kind.CONDITION, "fever", EventTime(None), origin=Origin.NOTE),
]


def test_table_has_human_dates_and_words():
    table = timeline_table(OCCS)
    assert "2 Jan 2024 10:05" in table and "Medication given" in table
    assert "during the encounter of 1–5 Jan 2024" in table and "Diagnosis" in table
    assert "2.1 mg/dL" in table and "Result" in table
    assert "note of 3 Jan 2024" in table and "rash (stated as absent)" in table
    assert "time unknown" in table
    assert "2024-01-02T" not in table and "occurrence" not in table and "granularity" not in table


def test_kinds_filter_and_json_rows_keep_the_record_times():
    table = timeline_table(OCCS, kinds={"lab"})
    assert "Creatinine" in table and "Vancomycin" not in table
    rows = timeline_rows(OCCS, kinds={"medication"})
    assert [r["time"] for r in rows] == ["2024-01-02T10:05:00Z"] and rows[0]["granularity"] == "minute"
