"""Derived findings from recorded values (core/index/derive.py): KDIGO on real data, unit conversion."""

from medeventgraph.core.index.derive import derive_occurrences

from .conftest import AKI_PATIENT


def test_kdigo_creatinine_rise_on_clinosim(clinosim):
    record = clinosim.for_patient(AKI_PATIENT)
    derived = derive_occurrences(record.occurrences)
    rises = [d for d in derived if d.id.startswith("derived/kdigo-creatinine-rise/")]
    assert rises, "SH7-0005 creatinine 1.33 -> 4.4 must derive a KDIGO rise"
    ids = {o.id for o in record.occurrences}
    for d in rises:
        assert d.kind.value == "derived" and d.origin.value == "derived"
        assert len(d.derived_from) == 2 and set(d.derived_from) <= ids
        trigger = next(o for o in record.occurrences if o.id == d.derived_from[-1])
        assert d.time == trigger.time and d.encounter == trigger.encounter and d.source == trigger.source
        assert "creatinine rise" in d.concept.text.lower()


def test_unit_conversion_umol():
    from datetime import UTC, datetime, timedelta

    from medeventgraph.model.occurrence import (
        Coding,
        Concept,
        EventTime,
        Granularity,
        Kind,
        Occurrence,
        Origin,
        SourceRef,
        Value,
    )

    def obs(i, value, unit, hours):
        return Occurrence(
            id=f"Observation/c{i}", patient="p", kind=Kind.LAB, origin=Origin.STRUCTURED,
            concept=Concept((Coding("http://loinc.org", "14682-9", "Creatinine"),), "Creatinine"),
            time=EventTime(datetime(2024, 1, 1, tzinfo=UTC) + timedelta(hours=hours), granularity=Granularity.SECOND),
            source=SourceRef("Observation", f"c{i}"), value=Value(quantity=value, unit=unit),
        )
    out = derive_occurrences([obs(1, 88.4, "umol/L", 0), obs(2, 123.76, "umol/L", 24)])  # 1.0 -> 1.4 mg/dL
    assert [d.id for d in out] == ["derived/kdigo-creatinine-rise/Observation/c2"]
    assert out[0].value.unit == "mg/dL" and abs(out[0].value.quantity - 1.4) < 1e-6


def test_a_celsius_temperature_is_read_on_the_fahrenheit_scale():
    from datetime import UTC, datetime

    from medeventgraph.model.occurrence import (
        Coding,
        Concept,
        EventTime,
        Granularity,
        Kind,
        Occurrence,
        Origin,
        SourceRef,
        Value,
    )

    def temp(i, value, unit):
        return Occurrence(
            id=f"Observation/t{i}", patient="p", kind=Kind.VITAL, origin=Origin.STRUCTURED,
            concept=Concept((Coding("http://loinc.org", "8310-5", "Body temperature"),), "Body temperature"),
            time=EventTime(datetime(2024, 1, 1, i, tzinfo=UTC), granularity=Granularity.SECOND),
            source=SourceRef("Observation", f"t{i}"), value=Value(quantity=value, unit=unit),
        )
    out = derive_occurrences([temp(1, 37.9, "Cel"), temp(2, 38.4, "Cel"), temp(3, 100.2, "[degF]")])
    assert [d.id for d in out] == ["derived/fever-reading/Observation/t2"]
    assert out[0].value.unit == "[degF]" and abs(out[0].value.quantity - 101.12) < 1e-6
