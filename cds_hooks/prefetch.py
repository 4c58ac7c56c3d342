"""Prefetch templates, and turning a hook request into the patient's resources.

Prefetched values are used as sent (a Bundle, a single resource, or null for a key the client
could not fill); whatever is missing is fetched from `fhirServer`. When data the service needs
cannot be had, the answer is 412 with an OperationOutcome, as the spec asks.
"""

from __future__ import annotations

import hashlib
import logging
import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

import httpx
import orjson
from medeventgraph.cds_hooks.errors import HookError
from medeventgraph.cds_hooks.fhir_client import FhirClient, FhirFetchError, next_link, resources_of
from medeventgraph.cds_hooks.models import HookRequest
from medeventgraph.fhir_adapters.json_shape import shape_problem
from medeventgraph.fhir_adapters.resource_types import KNOWN_RESOURCE_TYPES
from medeventgraph.model.settings import Settings

__all__ = ["PATIENT_PREFETCH", "PatientData", "check_shapes", "content_hash", "gather", "render_template"]

log = logging.getLogger("medeventgraph.cds_hooks")

# What every MedEventGraph service reads: the patient's record by resource type, every type the
# record adapters map (fhir_adapters.mappers), so each action (dispensed, reported, a procedure
# ordered) and each kind of note (DiagnosticReport.presentedForm, Composition) can be grounded.
# `patient` is an R4 search parameter of every type searched here.
PATIENT_PREFETCH: dict[str, str] = {
    "patient": "Patient/{{context.patientId}}",
    "encounters": "Encounter?patient={{context.patientId}}",
    "observations": "Observation?patient={{context.patientId}}",
    "medicationAdministrations": "MedicationAdministration?patient={{context.patientId}}",
    "medicationRequests": "MedicationRequest?patient={{context.patientId}}",
    "conditions": "Condition?patient={{context.patientId}}",
    "procedures": "Procedure?patient={{context.patientId}}",
    "documents": "DocumentReference?patient={{context.patientId}}",
    "medicationDispenses": "MedicationDispense?patient={{context.patientId}}",
    "medicationStatements": "MedicationStatement?patient={{context.patientId}}",
    "serviceRequests": "ServiceRequest?patient={{context.patientId}}",
    "diagnosticReports": "DiagnosticReport?patient={{context.patientId}}",
    "compositions": "Composition?patient={{context.patientId}}",
    "immunizations": "Immunization?patient={{context.patientId}}",
    "allergies": "AllergyIntolerance?patient={{context.patientId}}",
    "episodesOfCare": "EpisodeOfCare?patient={{context.patientId}}",
}

_FHIR_ID = re.compile(r"[A-Za-z0-9\-.]{1,64}")
_TOKEN = re.compile(r"\{\{\s*context\.([A-Za-z0-9_]+)\s*\}\}")


def render_template(template: str, context: dict[str, Any]) -> str | None:
    """Fill {{context.x}} tokens; None when a token has no simple value to put there."""
    missing = False

    def sub(m: re.Match[str]) -> str:
        nonlocal missing
        value = context.get(m.group(1))
        if not isinstance(value, (str, int)) or value == "":
            missing = True
            return ""
        return quote(str(value), safe="")

    out = _TOKEN.sub(sub, template)
    return None if missing else out


@dataclass
class PatientData:
    resources: list[dict[str, Any]]
    fetched_keys: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    base: str | None = None  # fhirServer: gives entries fullUrls, so absolute references resolve

    def as_bundle(self) -> dict[str, Any]:
        def entry(r: dict[str, Any]) -> dict[str, Any]:
            if self.base and isinstance(r.get("id"), str):
                return {"fullUrl": f"{self.base}/{r['resourceType']}/{r['id']}", "resource": r}
            return {"resource": r}

        return {"resourceType": "Bundle", "type": "collection", "entry": [entry(r) for r in self.resources]}


def _dedupe(resources: list[dict[str, Any]]) -> list[dict[str, Any]]:
    seen: dict[str, dict[str, Any]] = {}
    anonymous = []
    for res in resources:
        rid = res.get("id")
        if isinstance(rid, str) and rid:
            seen[f"{res['resourceType']}/{rid}"] = res
        else:
            anonymous.append(res)
    return [seen[k] for k in sorted(seen)] + anonymous


def _name(position: int, res: dict[str, Any]) -> str:
    """How a refusal names a resource: its type and id when they are a FHIR type and id (so the
    name never echoes a value, nor one that cannot be printed), else its position."""
    rtype = res.get("resourceType")
    if not (isinstance(rtype, str) and rtype in KNOWN_RESOURCE_TYPES):
        return f"#{position}"
    rid = res.get("id")
    return f"{rtype}/{rid}" if isinstance(rid, str) and _FHIR_ID.fullmatch(rid) else f"{rtype} #{position}"


def _refusal(position: int, res: dict[str, Any], max_depth: int) -> HookError | None:
    problem = shape_problem(res, max_depth)
    if problem is None:
        return None
    name = _name(position, res)
    at = f" at {problem.path}" if problem.path else ""
    limit = f" (limit MEG_MAX_JSON_DEPTH={max_depth})" if problem.code == "structure" else ""
    return HookError(400, f"prefetch resource {name}: {problem.rule}{at}{limit}", code=problem.code,
                     expression=("prefetch",))


def check_shapes(resources: list[dict[str, Any]], max_depth: int) -> None:
    """400 for the first resource the record's readers and hashers cannot take (fhir_adapters.json_shape)."""
    for i, res in enumerate(resources):
        refusal = _refusal(i, res, max_depth)
        if refusal is not None:
            raise refusal


def content_hash(resources: list[dict[str, Any]], max_depth: int = 250) -> str:
    """Hash of the resources' canonical JSON: the cache key for a built index.

    A resource orjson cannot encode (a lone surrogate, an integer past 64 bits, nesting past its
    recursion limit) is refused with a 400 naming the rule, not left to fail as a 500."""
    h = hashlib.sha256()
    for i, res in enumerate(resources):
        try:
            h.update(orjson.dumps(res, option=orjson.OPT_SORT_KEYS))
        except orjson.JSONEncodeError:
            raise _refusal(i, res, max_depth) or HookError(400, f"prefetch resource #{i}: not encodable as JSON",
                                                           code="structure", expression=("prefetch",)) from None
        h.update(b"\n")
    return h.hexdigest()


def _check_bundle(key: str, value: dict[str, Any], max_depth: int) -> None:
    """400 for a prefetched Bundle whose own fields (its paging links among them) break a rule;
    its entries' resources are checked one by one later, each named in its refusal."""
    if value.get("resourceType") != "Bundle":
        return
    problem = shape_problem({k: v for k, v in value.items() if k != "entry"}, max_depth)
    if problem is not None:
        at = f" at {problem.path}" if problem.path else ""
        raise HookError(400, f"prefetch {key}: Bundle: {problem.rule}{at}", code=problem.code,
                        expression=(f"prefetch.{key}",))


async def gather(req: HookRequest, templates: dict[str, str], settings: Settings,
                 http: httpx.AsyncClient) -> PatientData:
    prefetch = req.prefetch or {}
    token = req.fhirAuthorization.access_token if req.fhirAuthorization else None
    may_fetch = bool(req.fhirServer) and (token is not None or settings.fhir_fetch_without_token)
    client = (FhirClient(req.fhirServer, http, token, settings.fhir_timeout_seconds, settings.fhir_max_pages)
              if req.fhirServer else None)
    resources: list[dict[str, Any]] = []
    data = PatientData(resources=resources, base=req.fhirServer)
    missing: list[str] = []
    for key in templates:
        value = prefetch.get(key)
        if isinstance(value, dict) and value.get("resourceType") not in (None, "OperationOutcome"):
            _check_bundle(key, value, settings.max_json_depth)
            resources.extend(resources_of(value))
            if value.get("resourceType") == "Bundle" and next_link(value):
                # A prefetched first page: read the rest when we may, else use what came.
                if may_fetch and client is not None and client.same_server(next_link(value) or ""):
                    try:
                        resources.extend((await client.follow(value))[len(resources_of(value)):])
                    except FhirFetchError as exc:
                        raise HookError(412, f"prefetch {key}: {exc}", code="not-found") from None
                else:
                    data.notes.append(f"prefetch {key}: later pages not read")
            continue
        missing.append(key)
    if missing:
        if not req.fhirServer:
            raise HookError(412, f"prefetch missing ({', '.join(missing)}) and no fhirServer to fetch from",
                            code="not-found", expression=tuple(f"prefetch.{k}" for k in missing))
        if not may_fetch:
            raise HookError(412, f"prefetch missing ({', '.join(missing)}) and no fhirAuthorization "
                                 "(fetching without a token is disabled)",
                            code="security", expression=("fhirAuthorization",))
        assert client is not None
        for key in missing:
            query = render_template(templates[key], req.context)
            if query is None:
                raise HookError(412, f"prefetch {key}: context lacks the values its template needs",
                                code="not-found", expression=(f"prefetch.{key}",))
            try:
                resources.extend(await client.fetch(query))
            except FhirFetchError as exc:
                raise HookError(412, f"prefetch {key} could not be fetched: {exc}",
                                code="not-found", expression=(f"prefetch.{key}",)) from None
            data.fetched_keys.append(key)
        data.notes.extend(client.notes)
    data.resources = _dedupe(resources)
    if data.notes:
        log.info("hook %s: %s", req.hook, "; ".join(data.notes))
    return data
