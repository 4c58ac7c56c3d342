"""The launched patient's record, read from the EHR's FHIR server with the session's token.

Reuses the CDS Hooks FHIR reader (bearer token only ever sent to `iss` itself, paging bounded by
`fhir_max_pages`) and the CDS Hooks prefetch queries, so both surfaces see the same record.
"""

from __future__ import annotations

import logging
from typing import Any

import httpx
from medeventgraph.cds_hooks.errors import HookError
from medeventgraph.cds_hooks.fhir_client import FhirClient, FhirFetchError
from medeventgraph.cds_hooks.prefetch import PATIENT_PREFETCH, PatientData, render_template
from medeventgraph.model.settings import Settings

__all__ = ["fetch_record"]

log = logging.getLogger("medeventgraph.smart")

# Asked of every search: fewer, larger pages. Servers that search per page (Medplum re-runs the
# search for each page) answer a 350-Observation record in one round trip instead of seven;
# a server that caps `_count` lower still pages, and paging is followed up to fhir_max_pages.
PAGE_SIZE = 500


def _error(key: str, exc: FhirFetchError) -> HookError:
    # FhirFetchError carries no status; its message names the HTTP outcome. A 401/403 means the
    # session's access token is no longer accepted: the user must relaunch, so we answer 401.
    text = str(exc)
    if "refused access" in text:
        return HookError(401, f"FHIR server refused the session's token reading {key}; relaunch the app",
                         code="security")
    return HookError(502, f"reading {key} from the FHIR server failed: {text}", code="transient")


def _dedupe(resources: list[dict[str, Any]]) -> list[dict[str, Any]]:
    # Sorted by Type/id so one record always hashes the same (the index cache key).
    by_ref = {f"{r.get('resourceType')}/{r.get('id')}": r for r in resources if isinstance(r.get("id"), str)}
    return [by_ref[k] for k in sorted(by_ref)]


async def fetch_record(base: str, token: str, patient: str, settings: Settings,
                       http: httpx.AsyncClient) -> PatientData:
    client = FhirClient(base, http, token, settings.fhir_timeout_seconds, settings.fhir_max_pages)
    resources: list[dict[str, Any]] = []
    context = {"patientId": patient}
    for key, template in PATIENT_PREFETCH.items():
        query = render_template(template, context)
        if query is None:  # pragma: no cover - patient ids are non-empty strings
            raise HookError(400, "the session has no patient", code="required")
        if "?" in query:
            query += f"&_count={PAGE_SIZE}"
        try:
            got = await client.fetch(query)
        except FhirFetchError as exc:
            raise _error(key, exc) from None
        if key == "patient" and not got:
            raise HookError(412, "the launch patient is not on the FHIR server", code="not-found")
        resources.extend(got)
    data = PatientData(resources=_dedupe(resources), base=base, fetched_keys=list(PATIENT_PREFETCH))
    data.notes.extend(client.notes)
    if data.notes:
        log.info("smart record: %s", "; ".join(data.notes))
    return data
