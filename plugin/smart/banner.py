"""The page's header in an EHR's words: the patient's name and birth date, the encounter's type
and dates, the signed-in user's name, each read from the launch's own FHIR server with the
session's token (Patient/{id}, Encounter/{id}, the fhirUser resource).

Whatever cannot be read (refused, missing, unnamed, another server's fhirUser) falls back to the
neutral words of wording.json's `unnamed`; no resource id ever reaches the header. The words
are PHI: the log says only which part could not be read, never what was read.
"""

from __future__ import annotations

import logging
from typing import Any, Protocol

import httpx
from medeventgraph.cds_hooks.fhir_client import FhirClient, FhirFetchError
from medeventgraph.model.settings import Settings
from medeventgraph.wording.record_words import encounter_words, patient_words, person_name
from medeventgraph.wording.templates import Wording
from pydantic import BaseModel, ConfigDict

__all__ = ["Banner", "BannerSession", "read_banner"]

log = logging.getLogger("medeventgraph.smart")

_USER_TYPES = ("Practitioner", "Patient", "RelatedPerson", "Person")


class Banner(BaseModel):
    """What the header shows; the page sets each with textContent."""

    model_config = ConfigDict(frozen=True)
    patient: str  # "Lance Padberg", else "this patient"
    born: str | None = None  # "23 Jun 1964"
    encounter: str | None = None  # "Emergency visit · … · 3–9 Feb 2015", "this encounter"; None: no encounter context
    user: str | None = None  # the signed-in user's name; None: not shown


class BannerSession(Protocol):
    """What the header is read with: launch.SmartSession has these."""

    @property
    def iss(self) -> str: ...
    @property
    def access_token(self) -> str: ...
    @property
    def patient(self) -> str: ...
    @property
    def encounter(self) -> str | None: ...
    @property
    def fhir_user(self) -> str | None: ...


async def _read(client: FhirClient, ref: str, part: str) -> dict[str, Any] | None:
    try:
        got = await client.get_json(ref)
    except FhirFetchError:
        log.info("smart banner: %s could not be read, neutral words shown", part)
        return None
    if got is None or got.get("resourceType") != ref.split("/", 1)[0]:
        log.info("smart banner: no %s found, neutral words shown", part)
        return None
    return got


def _user_ref(client: FhirClient, fhir_user: str | None) -> str | None:
    """fhirUser as a read on this server ("Practitioner/7"), or None: the token is never sent
    elsewhere, and only person-like types are read."""
    if not fhir_user:
        return None
    ref = fhir_user
    if ref.startswith(("http://", "https://")):
        if not client.same_server(ref) or not ref.startswith(client.base.rstrip("/") + "/"):
            return None
        ref = ref[len(client.base.rstrip("/")) + 1:]
    parts = ref.strip("/").split("/")
    if len(parts) != 2 or parts[0] not in _USER_TYPES or not parts[1]:
        return None
    return "/".join(parts)


async def read_banner(session: BannerSession, settings: Settings, http: httpx.AsyncClient, w: Wording) -> Banner:
    client = FhirClient(session.iss, http, session.access_token, settings.fhir_timeout_seconds, 1)
    who = patient_words(await _read(client, f"Patient/{session.patient}", "patient"))
    encounter = None
    if session.encounter:
        res = await _read(client, f"Encounter/{session.encounter}", "encounter")
        encounter = encounter_words(res, w) or w.unnamed["encounter"]
    user = None
    if (ref := _user_ref(client, session.fhir_user)) is not None:
        user = person_name(await _read(client, ref, "user"))
    return Banner(patient=who.name or w.unnamed["patient"], born=who.born, encounter=encounter, user=user)
