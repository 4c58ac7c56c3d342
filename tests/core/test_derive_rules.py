"""Derived findings from recorded values (core/index/derive.py): KDIGO on real data, unit conversion."""

from datetime import UTC, datetime, timedelta

from medeventgraph.core.index.derive import derive_occurrences
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


def _recorded(rid: str, code: str, display: str, kind: Kind, value: float, unit: str, hours: int) -> Occurrence:
    return Occurrence(
        id=f"Observation/{rid}", patient="p", kind=kind, origin=Origin.STRUCTURED,
        concept=Concept((Coding("http://loinc.org", code, display),), display),
        time=EventTime(datetime(2024, 1, 1, tzinfo=UTC) + timedelta(hours=hours), granularity=Granularity.SECOND),
        source=SourceRef("Observation", rid), value=Value(quantity=value, unit=unit),
    )


def test_unit_conversion_umol():
    def creatinine(i, value, hours):
        return _recorded(f"c{i}", "14682-9", "Creatinine", Kind.LAB, value, "umol/L", hours)
    out = derive_occurrences([creatinine(1, 88.4, 0), creatinine(2, 123.76, 24)])  # 1.0 -> 1.4 mg/dL
    assert [d.id for d in out] == ["derived/kdigo-creatinine-rise/Observation/c2"]
    assert out[0].value.unit == "mg/dL" and abs(out[0].value.quantity - 1.4) < 1e-6


def test_a_celsius_temperature_is_read_on_the_fahrenheit_scale():
    def temp(i, value, unit):
        return _recorded(f"t{i}", "8310-5", "Body temperature", Kind.VITAL, value, unit, i)
    out = derive_occurrences([temp(1, 37.9, "Cel"), temp(2, 38.4, "Cel"), temp(3, 100.2, "[degF]")])
    assert [d.id for d in out] == ["derived/fever-reading/Observation/t2"]
    assert out[0].value.unit == "[degF]" and abs(out[0].value.quantity - 101.12) < 1e-6
