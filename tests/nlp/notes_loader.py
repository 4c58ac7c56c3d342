"""A tiny test-only loader: Synthea bundles / clinosim NDJSON -> NoteDocuments.

It stands in for `medeventgraph.fhir_adapters` (being written in parallel) so the nlp tests
run on real notes; it decodes base64 attachments and nothing more.
"""

from __future__ import annotations

import base64
import gzip
import json
from collections.abc import Iterable, Iterator
from datetime import datetime
from pathlib import Path

from medeventgraph.occurrence import EventTime, Granularity, NoteDocument, NoteText, TimeType


def _ref(reference: str | None, kind: str) -> str | None:
    if not reference:
        return None
    if reference.startswith("urn:uuid:"):
        return f"{kind}/{reference[9:]}"
    return reference


def _time(value: str | None) -> EventTime:
    if not value:
        return EventTime(start=None, type=TimeType.DOCUMENTATION)
    if len(value) == 10:
        start = datetime.fromisoformat(value + "T00:00:00+00:00")
        return EventTime(start=start, type=TimeType.DOCUMENTATION, granularity=Granularity.DAY)
    return EventTime(start=datetime.fromisoformat(value),
                     type=TimeType.DOCUMENTATION, granularity=Granularity.SECOND)


def _texts(attachments: list[dict]) -> tuple[NoteText, ...]:
    out = []
    for k, a in enumerate(attachments):
        if "data" in a:
            text = base64.b64decode(a["data"]).decode("utf-8", errors="replace")
            out.append(NoteText(k, a.get("contentType", "text/plain"), text))
    return tuple(out)


def note_document(resource: dict) -> NoteDocument | None:
    rtype = resource.get("resourceType")
    if rtype == "DocumentReference":
        texts = _texts([c.get("attachment", {}) for c in resource.get("content", [])])
        encounters = resource.get("context", {}).get("encounter", [])
        encounter = _ref(encounters[0].get("reference"), "Encounter") if encounters else None
        date = _time(resource.get("date"))
    elif rtype == "DiagnosticReport" and resource.get("presentedForm"):
        texts = _texts(resource["presentedForm"])
        encounter = _ref(resource.get("encounter", {}).get("reference"), "Encounter")
        date = _time(resource.get("issued") or resource.get("effectiveDateTime"))
    else:
        return None
    if not texts:
        return None
    return NoteDocument(
        resource_type=rtype,
        resource_id=resource["id"],
        patient=_ref(resource.get("subject", {}).get("reference"), "Patient") or "",
        encounter=encounter,
        date=date,
        texts=texts,
        version=resource.get("meta", {}).get("versionId"),
    )


def _documents(resources: Iterable[dict]) -> Iterator[NoteDocument]:
    for resource in resources:
        doc = note_document(resource)
        if doc is not None:
            yield doc


def synthea_documents(path: Path) -> list[NoteDocument]:
    """Every note of every Synthea bundle in `path` (DocumentReference and DiagnosticReport)."""
    out: list[NoteDocument] = []
    for bundle in sorted(path.glob("*.json")):
        data = json.loads(bundle.read_text())
        out.extend(_documents(e["resource"] for e in data.get("entry", []) if "resource" in e))
    return out


def ndjson_documents(path: Path) -> list[NoteDocument]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as fh:
        return list(_documents(json.loads(line) for line in fh if line.strip()))
