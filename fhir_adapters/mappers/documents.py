"""DocumentReference, DiagnosticReport and Composition: notes (NoteDocument) and their navigation occurrences.

Synthea writes each note twice, as a DocumentReference and as DiagnosticReport.presentedForm;
both are kept here (each is a real, citable resource) and the NLP stage deduplicates text.
"""

from __future__ import annotations

from typing import Any

from medeventgraph.fhir_adapters.context import MapContext
from medeventgraph.fhir_adapters.elements import as_list, codes, concept
from medeventgraph.fhir_adapters.mappers.common import pick_time, status_of
from medeventgraph.fhir_adapters.notes import decode_attachment, html_to_text
from medeventgraph.fhir_adapters.times import instant_time
from medeventgraph.model.occurrence import (
    EventTime,
    Granularity,
    Kind,
    NoteDocument,
    NoteText,
    Occurrence,
    Origin,
    SourceRef,
    TimeType,
)

__all__ = ["map_composition", "map_diagnostic_report", "map_document_reference"]

_STRUCTURED = Origin.STRUCTURED


def _texts(ctx: MapContext, attachments: list[tuple[int, Any]], field: str) -> tuple[NoteText, ...]:
    out: list[NoteText] = []
    for i, att in attachments:
        text, problems = decode_attachment(att, i, ctx.max_note_chars, field, max_bytes=ctx.limits.max_note_bytes)
        for p in problems:
            ctx.issue(p.severity, p.code, p.message, f"{field}[{i}]")
        if text is not None:
            out.append(text)
    return tuple(out)


def _written_by(time: EventTime) -> EventTime:
    """A note's documentation bound from its time: a note with only its encounter's period was
    written by the encounter's end (unknown while the encounter is open)."""
    if time.type is not TimeType.ENCOUNTER_BOUNDED:
        return time
    return EventTime(time.end, None, TimeType.DOCUMENTATION, time.granularity if time.end else Granularity.UNKNOWN)


def _version(raw: dict[str, Any]) -> str | None:
    meta = raw.get("meta")
    v = meta.get("versionId") if isinstance(meta, dict) else None
    return v if isinstance(v, str) else None


def map_document_reference(ctx: MapContext, raw: dict[str, Any], key: str, patient: str) -> None:
    rid = key[18:]
    context = raw.get("context")
    if not isinstance(context, dict):
        context = {}
    encounter, episode = ctx.context_of(context, "encounter")
    date = instant_time(raw.get("date"), TimeType.DOCUMENTATION)
    path = "date"
    if date is None:
        # No `date`: the service period is the best bound we have on when it was written
        # (not before the period ended); still documentation time, never the event's time.
        period = context.get("period")
        fallback = None
        if isinstance(period, dict):
            fallback = instant_time(period.get("end"), TimeType.DOCUMENTATION) or instant_time(
                period.get("start"), TimeType.DOCUMENTATION)
        if fallback is not None:
            ctx.issue("warning", "required", "no date; context.period used as documentation time",
                      "DocumentReference.date")
            date, path = fallback, "context.period"
        elif encounter in ctx.encounter_bounds:
            # Written somewhere within its encounter: by its end (_written_by).
            date, path = ctx.encounter_bounds[encounter], "context.encounter"  # type: ignore[index]
        else:
            ctx.issue("warning", "required", "no date or context.period; documentation time unknown",
                      "DocumentReference.date")
            date, path = EventTime(None, None, TimeType.DOCUMENTATION), ""
    attachments = [(i, c.get("attachment") if isinstance(c, dict) else None)
                   for i, c in enumerate(as_list(raw.get("content")))]
    texts = _texts(ctx, attachments, "content")
    c = concept(raw.get("type"))
    status = status_of(raw)
    ctx.documents.append(NoteDocument(
        resource_type="DocumentReference", resource_id=rid, patient=patient, encounter=encounter,
        date=_written_by(date), texts=texts, version=_version(raw), title=c.text or None,
    ))
    links: list[tuple[str, str]] = [("encounter", encounter)] if encounter else []
    for rel in as_list(raw.get("relatesTo")):
        if isinstance(rel, dict):
            links.extend(ctx.links(rel, (("target", "relatesTo"),)))
    extra: list[tuple[str, str]] = [("resource", "DocumentReference")]
    doc_status = raw.get("docStatus")
    if isinstance(doc_status, str):
        extra.append(("docStatus", doc_status))
    for cat in codes(raw.get("category")):
        extra.append(("category", cat))
    ctx.occurrences.append(Occurrence(
        id=key, patient=patient, kind=Kind.DOCUMENT, origin=_STRUCTURED, concept=c, time=date,
        source=SourceRef("DocumentReference", rid, path), encounter=encounter, episode=episode,
        status=status, links=tuple(links), extra=tuple(extra),
    ))


def map_diagnostic_report(ctx: MapContext, raw: dict[str, Any], key: str, patient: str) -> None:
    rid = key[17:]
    encounter, episode = ctx.context_of(raw, "encounter", "context")
    time, path, documented = pick_time(ctx, raw, "effective", (("issued", TimeType.DOCUMENTATION),),
                                       "effective[x] or issued", encounter)
    links = ctx.links(raw, (("result", "result"), ("basedOn", "basedOn")))
    if encounter is not None:
        links.insert(0, ("encounter", encounter))
    c = concept(raw.get("code"))
    status = status_of(raw)
    extra = tuple([("resource", "DiagnosticReport")] + [("category", x) for x in codes(raw.get("category"))])
    ctx.occurrences.append(Occurrence(
        id=key, patient=patient, kind=Kind.REPORT, origin=_STRUCTURED, concept=c, time=time,
        source=SourceRef("DiagnosticReport", rid, path), encounter=encounter, episode=episode,
        status=status, documented=documented, links=tuple(links), extra=extra,
    ))
    forms = raw.get("presentedForm")
    if forms is None:
        return
    texts = _texts(ctx, list(enumerate(as_list(forms))), "presentedForm")
    doc_time = documented or (time if time.type is TimeType.DOCUMENTATION else None)
    if doc_time is None and time.type is TimeType.ENCOUNTER_BOUNDED:
        doc_time = _written_by(time)
    if doc_time is None:
        # effective[x] is when the observed thing happened; a report is written at or after it.
        doc_time = EventTime(time.start, None, TimeType.DOCUMENTATION, time.granularity)
    ctx.documents.append(NoteDocument(
        resource_type="DiagnosticReport", resource_id=rid, patient=patient, encounter=encounter,
        date=doc_time, texts=texts, version=_version(raw), title=c.text or None,
    ))


def _section_text(section: dict[str, Any], depth: int = 0) -> str:
    parts: list[str] = []
    title = section.get("title")
    if isinstance(title, str) and title:
        parts.append(title)
    narrative = section.get("text")
    div = narrative.get("div") if isinstance(narrative, dict) else None
    if isinstance(div, str) and div:
        parts.append(html_to_text(div))
    if depth < 4:
        for sub in as_list(section.get("section")):
            if isinstance(sub, dict):
                parts.append(_section_text(sub, depth + 1))
    return "\n".join(p for p in parts if p)


def map_composition(ctx: MapContext, raw: dict[str, Any], key: str, patient: str) -> None:
    """A Composition's sections (clinosim H&P, discharge summaries) as one note; NoteText
    `attachment` is the index into `section[]`, with nested sections folded into their parent."""
    rid = key[12:]
    encounter, episode = ctx.context_of(raw, "encounter")
    time, path, _ = pick_time(ctx, raw, None, (("date", TimeType.DOCUMENTATION),), "date", encounter)
    if time.type not in (TimeType.DOCUMENTATION, TimeType.ENCOUNTER_BOUNDED):
        time = EventTime(None, None, TimeType.DOCUMENTATION)
    texts: list[NoteText] = []
    for i, section in enumerate(as_list(raw.get("section"))):
        if not isinstance(section, dict):
            ctx.issue("warning", "structure", f"section[{i}] is not an object; skipped", f"section[{i}]")
            continue
        text = _section_text(section)
        if len(text) > ctx.max_note_chars:
            text = text[: ctx.max_note_chars]
            ctx.issue("warning", "too-long", f"section[{i}] text truncated to {ctx.max_note_chars} characters",
                      f"section[{i}]")
        if text:
            texts.append(NoteText(i, "text/html", text))
    c = concept(raw.get("type"))
    status = status_of(raw)
    ctx.documents.append(NoteDocument(
        resource_type="Composition", resource_id=rid, patient=patient, encounter=encounter, date=_written_by(time),
        texts=tuple(texts), version=_version(raw), title=c.text or None,
    ))
    ctx.occurrences.append(Occurrence(
        id=key, patient=patient, kind=Kind.DOCUMENT, origin=_STRUCTURED, concept=c, time=time,
        source=SourceRef("Composition", rid, path), encounter=encounter, episode=episode, status=status,
        links=(("encounter", encounter),) if encounter else (), extra=(("resource", "Composition"),),
    ))
