"""Plain data types shared by every stage: one clinical event instance and where it came from.

These are frozen dataclasses with no behaviour beyond small derived properties, so that
`fhir_adapters` and `nlp` can build them and `core` can read them without either side
importing the other (DESIGN.md: core -> (fhir_adapters, nlp) -> plain data types).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from datetime import date as calendar_date  # NoteDocument has a field named `date`
from enum import Enum

__all__ = [
    "GRANULARITY_SPAN",
    "Action",
    "Assertion",
    "Coding",
    "Concept",
    "EventTime",
    "Granularity",
    "Kind",
    "NoteDocument",
    "NoteText",
    "Occurrence",
    "Origin",
    "SourceRef",
    "TimeType",
    "Value",
]


class Kind(str, Enum):
    """Clinical type of an occurrence; a query event's `kind` constrains this."""

    MEDICATION = "medication"
    LAB = "lab"
    VITAL = "vital"
    CONDITION = "condition"
    PROCEDURE = "procedure"
    DERIVED = "derived"
    ENCOUNTER = "encounter"
    IMMUNIZATION = "immunization"
    ALLERGY = "allergy"
    OBSERVATION = "observation"  # survey, social history, other non-lab non-vital observations
    REPORT = "report"
    DOCUMENT = "document"
    EPISODE = "episode"


class Origin(str, Enum):
    STRUCTURED = "structured"
    NOTE = "note"
    DERIVED = "derived"


class TimeType(str, Enum):
    OCCURRENCE = "occurrence"
    DOCUMENTATION = "documentation"
    RECORDED = "recorded"
    # No time of its own: somewhere within its encounter's period [start, end].
    ENCOUNTER_BOUNDED = "encounter-bounded"


class Action(str, Enum):
    """What the record says happened to an occurrence: the resource type tells an order from
    a dose given, a supply handed over or a patient's report (issue #13)."""

    ORDERED = "ordered"  # MedicationRequest, ServiceRequest
    ADMINISTERED = "administered"  # MedicationAdministration
    DISPENSED = "dispensed"  # MedicationDispense
    REPORTED = "reported"  # MedicationStatement
    PERFORMED = "performed"  # Procedure
    COLLECTED = "collected"  # Observation (effective[x]); its result time is `issued`


class Granularity(str, Enum):
    SECOND = "second"
    MINUTE = "minute"
    HOUR = "hour"
    DAY = "day"
    WEEK = "week"  # an approximate range from text ("about 3 weeks ago")
    MONTH = "month"
    YEAR = "year"
    UNKNOWN = "unknown"


# How wide the uncertainty of a time stamp of each granularity is. Month and year use their
# longest length so the window always contains the true instant.
GRANULARITY_SPAN: dict[Granularity, timedelta] = {
    Granularity.SECOND: timedelta(seconds=1),
    Granularity.MINUTE: timedelta(minutes=1),
    Granularity.HOUR: timedelta(hours=1),
    Granularity.DAY: timedelta(days=1),
    Granularity.WEEK: timedelta(days=7),
    Granularity.MONTH: timedelta(days=31),
    Granularity.YEAR: timedelta(days=366),
}


@dataclass(frozen=True, slots=True)
class Coding:
    system: str | None
    code: str | None
    display: str | None = None


@dataclass(frozen=True, slots=True)
class Concept:
    """Codes plus the human text; `text` is the best display, `normalized` its lower-cased form."""

    codings: tuple[Coding, ...] = ()
    text: str = ""

    @property
    def normalized(self) -> str:
        return " ".join(self.text.lower().split())

    def displays(self) -> tuple[str, ...]:
        seen = [self.text] + [c.display for c in self.codings if c.display]
        return tuple(dict.fromkeys(d for d in seen if d))


@dataclass(frozen=True, slots=True)
class EventTime:
    """When something happened (or was documented), with the precision it was recorded at.

    `start`/`end` are timezone-aware. A date-only value has `start` at midnight UTC of that day
    and granularity DAY: its true instant lies anywhere in [start, start + 1 day).
    `end` is None for instants. Granularity UNKNOWN means no usable time. `width`, when set, is
    narrower than the granularity's span: a range a note tells in words ("for the past 2 days" is
    between 3 and 1 days before the note) is known to that range, which no calendar unit fits.
    """

    start: datetime | None
    end: datetime | None = None
    type: TimeType = TimeType.OCCURRENCE
    granularity: Granularity = Granularity.UNKNOWN
    width: timedelta | None = None

    @property
    def resolved(self) -> bool:
        return self.start is not None and self.granularity is not Granularity.UNKNOWN

    def start_window(self) -> tuple[datetime, datetime] | None:
        """Earliest and latest instant the start can be, given its granularity (or its told width)."""
        if not self.resolved or self.start is None:
            return None
        return self.start, self.start + self.span

    def end_window(self) -> tuple[datetime, datetime] | None:
        if not self.resolved:
            return None
        if self.end is None:
            return self.start_window()
        return self.end, self.end + self.span

    @property
    def span(self) -> timedelta:
        """How far past `start` (or `end`) the true instant may lie."""
        return self.width if self.width is not None else GRANULARITY_SPAN[self.granularity]


UNKNOWN_TIME = EventTime(start=None)


@dataclass(frozen=True, slots=True)
class Value:
    quantity: float | None = None
    unit: str | None = None
    text: str | None = None  # valueCodeableConcept / valueString rendering
    interpretation: str | None = None  # e.g. "H", "L", "N"
    low: float | None = None  # reference range
    high: float | None = None
    # What a derived finding's quantity was compared with, in its unit: the lowest prior value
    # for a rise, the limit for an above/below test (core.derive); what S_num reads.
    reference: float | None = None


@dataclass(frozen=True, slots=True)
class Assertion:
    """ConText-style attributes; structured resources map their status fields onto these."""

    negated: bool = False
    uncertain: bool = False
    hypothetical: bool = False
    historical: bool = False
    family: bool = False

    @property
    def affirmed_current(self) -> bool:
        return not (self.negated or self.hypothetical or self.historical or self.family)


AFFIRMED = Assertion()


@dataclass(frozen=True, slots=True)
class SourceRef:
    """Where an occurrence's evidence lives: a resource (and JSON path) or a note span."""

    resource_type: str
    resource_id: str
    json_path: str = ""
    attachment: int | None = None  # note spans: index into content[] / presentedForm[]
    start: int | None = None  # note spans: character offsets in the decoded text
    end: int | None = None
    section: str | None = None

    @property
    def reference(self) -> str:
        return f"{self.resource_type}/{self.resource_id}"

    @property
    def citation(self) -> str:
        if self.start is None:
            return self.reference
        return f"{self.reference}#s{self.start}-{self.end}"


@dataclass(frozen=True, slots=True)
class Occurrence:
    """One event instance (never a concept). `id` is stable and doubles as the citation key."""

    id: str
    patient: str
    kind: Kind
    origin: Origin
    concept: Concept
    time: EventTime
    source: SourceRef
    encounter: str | None = None  # "Encounter/<id>"
    episode: str | None = None  # "EpisodeOfCare/<id>" or a derived episode key
    value: Value | None = None
    assertion: Assertion = AFFIRMED
    status: str | None = None  # FHIR status (completed, not-done, entered-in-error, ...)
    documented: EventTime | None = None  # documentation/recorded time when distinct from `time`
    # Recorded references to other occurrences (request, reasonReference, partOf, hasMember,
    # DiagnosticReport.result, derivedFrom) as occurrence ids; graph edges come from these.
    links: tuple[tuple[str, str], ...] = ()  # (relation name, target occurrence id)
    derived_from: tuple[str, ...] = ()  # derived occurrences: every source occurrence id
    text: str | None = None  # note mentions: the sentence the mention sits in
    extra: tuple[tuple[str, str], ...] = field(default=())  # small typed-free facts (class, category)
    action: Action | None = None  # what happened (ordered, administered, ...); None for the rest
    issued: EventTime | None = None  # labs: when the result was issued (Observation.issued)

    @property
    def reference(self) -> str:
        return self.source.reference

    def extra_value(self, key: str) -> str | None:
        return next((v for k, v in self.extra if k == key), None)


@dataclass(frozen=True, slots=True)
class NoteText:
    attachment: int
    content_type: str
    text: str


@dataclass(frozen=True, slots=True)
class NoteDocument:
    """A note's decoded text, kept for the NLP stage (DocumentReference or DiagnosticReport)."""

    resource_type: str
    resource_id: str
    patient: str
    encounter: str | None
    date: EventTime  # documentation time
    texts: tuple[NoteText, ...]
    version: str | None = None
    title: str | None = None

    @classmethod
    def from_text(cls, resource_id: str, patient: str, text: str,
                  written: datetime | calendar_date | None = None) -> NoteDocument:
        """A plain-text note with no FHIR resource behind it (a line of `medeventgraph notes`):
        `written`, at the precision given (a date is a day, a time a second; naive means UTC),
        is its documentation time, which relative times in the text resolve against."""
        if written is None:
            when = EventTime(start=None, type=TimeType.DOCUMENTATION, granularity=Granularity.UNKNOWN)
        elif isinstance(written, datetime):
            start = written if written.tzinfo else written.replace(tzinfo=UTC)
            when = EventTime(start=start, type=TimeType.DOCUMENTATION, granularity=Granularity.SECOND)
        else:
            start = datetime(written.year, written.month, written.day, tzinfo=UTC)
            when = EventTime(start=start, type=TimeType.DOCUMENTATION, granularity=Granularity.DAY)
        return cls("DocumentReference", resource_id, patient, None, when, (NoteText(0, "text/plain", text),))

    @property
    def reference(self) -> str:
        return f"{self.resource_type}/{self.resource_id}"
