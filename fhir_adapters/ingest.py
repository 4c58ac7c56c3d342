"""Raw resources -> IngestResult, in three passes over everything loaded together:

1. index: structural checks, "Type/id" keys, fullUrl map (so urn:uuid references resolve
   across files and regardless of entry order);
2. ownership: which patient each resource belongs to; EpisodeOfCare of each Encounter;
3. mapping: one dispatch per resource into Occurrences and NoteDocuments.

A resource that fails a check becomes an Issue and the rest goes on.
"""

from __future__ import annotations

import gc
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

import orjson
from medeventgraph.fhir_adapters.context import MapContext
from medeventgraph.fhir_adapters.encounters import (
    admissions,
    bound_by_encounter_end,
    encounter_bounds,
    within_admission,
)
from medeventgraph.fhir_adapters.json_shape import shape_problem
from medeventgraph.fhir_adapters.limits import DEFAULT_LIMITS, InputLimits
from medeventgraph.fhir_adapters.mappers.registry import MAPPERS
from medeventgraph.fhir_adapters.reader import RawItem, items_from_json, read_paths
from medeventgraph.fhir_adapters.record import IngestResult
from medeventgraph.fhir_adapters.references import ReferenceIndex, key_from_full_url
from medeventgraph.fhir_adapters.resource_types import KNOWN_RESOURCE_TYPES, PATIENT_FIELDS
from medeventgraph.model.outcome import InputError, Issue

__all__ = ["DEFAULT_MAX_NOTE_CHARS", "ingest_items", "ingest_json", "load_paths"]

DEFAULT_MAX_NOTE_CHARS = DEFAULT_LIMITS.max_note_chars


def _limits(limits: InputLimits | None, max_note_chars: int | None) -> InputLimits:
    limits = limits or DEFAULT_LIMITS
    return limits if max_note_chars is None else replace(limits, max_note_chars=max_note_chars)


@contextmanager
def _gc_paused() -> Iterator[None]:
    """Pause the cyclic GC while building the record.

    Parsed JSON is tens of thousands of acyclic dicts; as they pile up, every generation-2
    collection rescans all of them. Measured on the clinosim NDJSON cohort: reading 450 -> 135 ms,
    mapping 450 -> 240 ms (CPU). Reference counting still frees everything; the collector is
    restored (only if it was on) when ingest ends, even on error.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _where(loc: str, what: str) -> str:
    return f"{loc} {what}" if loc else what


def _index(items: list[RawItem], resources: dict[str, dict[str, Any]], index: ReferenceIndex,
           locations: dict[str, str], issues: list[Issue], max_depth: int) -> None:
    for item in items:
        res, loc = item.resource, item.location
        if not isinstance(res, dict):
            issues.append(Issue("error", "structure", f"{loc or 'input'}: resource is not a JSON object"))
            continue
        rtype = res.get("resourceType")
        if not isinstance(rtype, str) or not rtype:
            issues.append(Issue("error", "required", f"{loc or 'input'}: no resourceType"))
            continue
        if rtype not in KNOWN_RESOURCE_TYPES:
            issues.append(Issue("error", "not-supported", f"{loc or 'input'}: resourceType is not a FHIR R4 resource"))
            continue
        problem = shape_problem(res, max_depth)
        if problem is not None:
            at = f" at {problem.path}" if problem.path else ""
            issues.append(Issue("error", problem.code, f"{loc or 'input'}: {rtype}: {problem.rule}{at}; skipped"))
            continue
        rid = res.get("id")
        if isinstance(rid, str) and rid and "/" not in rid:
            key = f"{rtype}/{rid}"
        else:
            key = key_from_full_url(item.full_url, rtype)
            if key is None:
                issues.append(Issue("error", "required", _where(loc, f"{rtype}: no id and no fullUrl to derive one")))
                continue
        if item.full_url is not None:
            index.add_full_url(item.full_url, key)
        previous = resources.get(key)
        # The same resource seen twice (a prefetch repeating a bundle entry) is not a problem.
        if previous is not None and previous is not res and previous != res:
            issues.append(Issue("warning", "duplicate",
                                _where(loc, f"{key}: loaded more than once with different content; last kept")))
        resources[key] = res
        locations[key] = loc


def _patient_of(res: dict[str, Any], index: ReferenceIndex) -> tuple[str | None, str | None]:
    """(patient id, None) or (None, problem); (None, None) when no patient element exists or it
    points at a non-patient subject (a Group, a Location)."""
    for field in PATIENT_FIELDS:
        value = res.get(field)
        if value is None:
            continue
        refs = value if isinstance(value, list) else [value]
        other = False
        for ref in refs:
            key = index.resolve(ref)
            if key is None:
                continue
            if key.startswith("Patient/"):
                return key[8:], None
            other = True
        if other:
            return None, None
        return None, f"{field} reference does not resolve to a resource in the input"
    return None, "no subject/patient reference"


def _ownership(resources: dict[str, dict[str, Any]], index: ReferenceIndex, locations: dict[str, str],
               owner: dict[str, str], issues: list[Issue]) -> None:
    dropped: list[str] = []
    for key, res in resources.items():
        rtype = key.partition("/")[0]
        if rtype == "Patient":
            owner[key] = key[8:]
            continue
        patient, problem = _patient_of(res, index)
        if patient is not None:
            owner[key] = patient
            continue
        mapped = rtype in MAPPERS
        if problem is None:
            if mapped:
                issues.append(Issue("information", "informational",
                                    _where(locations[key], f"{key}: subject is not a Patient; not mapped")))
            continue
        missing = problem.startswith("no ")
        if mapped or not missing:
            # Clinical data whose patient we cannot tell must not show up in anyone's record.
            issues.append(Issue("error" if mapped else "warning", "required" if missing else "not-found",
                                _where(locations[key], f"{key}: {problem}; resource excluded")))
            dropped.append(key)
    for key in dropped:
        del resources[key]


def _episodes(resources: dict[str, dict[str, Any]], index: ReferenceIndex, owner: dict[str, str]) -> dict[str, str]:
    """Encounter -> EpisodeOfCare, inherited down partOf chains (a ward stay within an admission)."""
    direct: dict[str, str] = {}
    parent: dict[str, str] = {}
    for key, res in resources.items():
        if not key.startswith("Encounter/") or key not in owner:
            continue
        eps = res.get("episodeOfCare")
        for ref in eps if isinstance(eps, list) else [eps] if eps is not None else []:
            ep = index.resolve(ref)
            if ep is not None and ep.startswith("EpisodeOfCare/"):
                direct[key] = ep
                break
        part = index.resolve(res.get("partOf"))
        if part is not None and part.startswith("Encounter/"):
            parent[key] = part
    out = dict(direct)
    for key in parent:
        if key in out:
            continue
        seen = {key}
        cur = parent.get(key)
        while cur is not None and cur not in seen:
            if cur in direct:
                out[key] = direct[cur]
                break
            seen.add(cur)
            cur = parent.get(cur)
    return out


def ingest_items(items: list[RawItem], issues: list[Issue] | None = None, *,
                 limits: InputLimits | None = None, max_note_chars: int | None = None) -> IngestResult:
    limits = _limits(limits, max_note_chars)
    result = IngestResult()
    if issues:
        result.issues.extend(issues)
    resources = result.resources
    index = ReferenceIndex(resources)
    locations: dict[str, str] = {}
    _index(items, resources, index, locations, result.issues, limits.max_json_depth)
    _ownership(resources, index, locations, result.owner, result.issues)
    bounds = encounter_bounds(resources, result.owner)
    ctx = MapContext(index, resources, result.owner, _episodes(resources, index, result.owner), limits, bounds)
    owner = result.owner
    for key, res in resources.items():
        mapper = MAPPERS.get(key.partition("/")[0])
        if mapper is None:
            continue
        patient = owner.get(key)
        if patient is None:
            continue
        ctx.key = key
        ctx.location = locations[key]
        try:
            mapper(ctx, res, key, patient)
        except Exception as e:  # noqa: BLE001 - one odd resource must not sink the batch
            ctx.issue("error", "exception", f"could not be mapped ({type(e).__name__}); skipped")
    admission = admissions(resources, index, bounds)
    result.occurrences = within_admission(ctx.occurrences, admission)
    result.documents = [
        replace(d, encounter=admission[d.encounter]) if d.encounter in admission else d  # type: ignore[index]
        for d in bound_by_encounter_end(ctx.documents, ctx.occurrences)
    ]
    result.issues.extend(ctx.issues)
    return result


def ingest_json(data: bytes | str | dict | list, *, source_name: str = "input",
                limits: InputLimits | None = None, max_note_chars: int | None = None) -> IngestResult:
    """A Bundle (any type), a single resource, or a list of both (a CDS Hooks prefetch).

    Bytes/str that are not JSON at all raise InputError: there is nothing else to go on with."""
    with _gc_paused():
        if isinstance(data, (bytes, bytearray, memoryview, str)):
            try:
                data = orjson.loads(data)
            except orjson.JSONDecodeError:
                raise InputError(Issue("fatal", "structure", f"{source_name}: malformed JSON")) from None
        items, issues = items_from_json(data)
        return ingest_items(items, issues, limits=_limits(limits, max_note_chars))


def load_paths(paths: Iterable[str | Path], *, limits: InputLimits | None = None,
               max_note_chars: int | None = None) -> IngestResult:
    """Bundle/resource JSON files, NDJSON (plain or .gz) files, or folders of them, read as one
    input so that references across files (NDJSON per type, companion bundles) resolve."""
    if isinstance(paths, (str, Path)):
        paths = [paths]
    with _gc_paused():
        limits = _limits(limits, max_note_chars)
        items, issues = read_paths(paths, max_inflated_bytes=limits.max_inflated_bytes)
        return ingest_items(items, issues, limits=limits)
