"""A small FHIR REST reader for what prefetch did not bring: reads and paged searches.

The bearer token from `fhirAuthorization` is only ever sent to `fhirServer` itself: a paging
link that points at another origin is not followed.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urljoin, urlsplit

import httpx

__all__ = ["FHIR_MEDIA_TYPES", "FhirClient", "FhirFetchError", "resources_of"]

log = logging.getLogger("medeventgraph.cds_hooks")

# Clients and servers still use the DSTU2 media type; accept both, and plain JSON.
FHIR_MEDIA_TYPES = ("application/fhir+json", "application/json+fhir", "application/json")
_MAX_BUNDLE_DEPTH = 8
_ACCEPT = "application/fhir+json, application/json+fhir;q=0.9, application/json;q=0.8"


class FhirFetchError(Exception):
    """The FHIR server could not give what was asked; the message names the request, not data."""


def resources_of(value: Any, _depth: int = 0) -> list[dict[str, Any]]:
    """Resources in a prefetch value or response: a Bundle's entries, or a single resource.

    Wrong container types (`"entry": 5`, an entry that is not an object) give nothing for that
    part; Bundles nested in Bundles are read to a fixed depth."""
    if not isinstance(value, dict) or not isinstance(value.get("resourceType"), str):
        return []
    if value["resourceType"] == "Bundle":
        entries = value.get("entry")
        if not isinstance(entries, list) or _depth >= _MAX_BUNDLE_DEPTH:
            return []
        out: list[dict[str, Any]] = []
        for entry in entries:
            res = entry.get("resource") if isinstance(entry, dict) else None
            if isinstance(res, dict) and isinstance(res.get("resourceType"), str):
                out.extend(resources_of(res, _depth + 1) if res["resourceType"] == "Bundle" else [res])
        return out
    if value["resourceType"] == "OperationOutcome":
        return []
    return [value]


def next_link(bundle: dict[str, Any]) -> str | None:
    links = bundle.get("link")
    for link in links if isinstance(links, list) else []:
        if isinstance(link, dict) and link.get("relation") == "next" and isinstance(link.get("url"), str):
            return link["url"]
    return None


def _origin(url: str) -> tuple[str, str]:
    parts = urlsplit(url)
    return parts.scheme, parts.netloc.lower()


@dataclass
class FhirClient:
    base: str
    http: httpx.AsyncClient
    token: str | None
    timeout: float
    max_pages: int
    notes: list[str] = field(default_factory=list)  # what was cut short, for the log

    def _headers(self) -> dict[str, str]:
        headers = {"Accept": _ACCEPT}
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        return headers

    def same_server(self, url: str) -> bool:
        return _origin(url) == _origin(self.base)

    async def get_json(self, url: str) -> dict[str, Any] | None:
        """GET a FHIR URL (absolute on this server, or relative to base); None on 404/410."""
        if not url.startswith(("http://", "https://")):
            url = urljoin(self.base + "/", url.lstrip("/"))
        if not self.same_server(url):
            raise FhirFetchError("refusing to send the FHIR token to another server")
        try:
            resp = await self.http.get(url, headers=self._headers(), timeout=self.timeout)
        except httpx.HTTPError as exc:
            raise FhirFetchError(f"FHIR server unreachable ({type(exc).__name__})") from None
        except (httpx.InvalidURL, UnicodeError):  # a paging link that is no URL, or not valid Unicode
            raise FhirFetchError("a search page link is not a valid URL") from None
        if resp.status_code in (404, 410):
            return None
        if resp.status_code in (401, 403):
            raise FhirFetchError(f"FHIR server refused access (HTTP {resp.status_code})")
        if resp.status_code >= 400:
            raise FhirFetchError(f"FHIR server answered HTTP {resp.status_code}")
        ctype = resp.headers.get("content-type", "").split(";")[0].strip().lower()
        if ctype not in FHIR_MEDIA_TYPES:
            raise FhirFetchError("FHIR server answered with a non-FHIR media type")
        try:
            data = resp.json()
        except ValueError:
            raise FhirFetchError("FHIR server answered with invalid JSON") from None
        if not isinstance(data, dict):
            raise FhirFetchError("FHIR server answered with JSON that is not a resource")
        return data

    async def follow(self, bundle: dict[str, Any], pages_done: int = 1) -> list[dict[str, Any]]:
        """Resources of `bundle` and of its `next` pages, up to max_pages pages in all."""
        out = resources_of(bundle)
        page = bundle
        while (url := next_link(page)) is not None:
            if pages_done >= self.max_pages:
                self.notes.append("paging stopped at fhir_max_pages")
                break
            if not self.same_server(url):
                self.notes.append("paging link to another server not followed")
                break
            nxt = await self.get_json(url)
            if nxt is None or nxt.get("resourceType") != "Bundle":
                raise FhirFetchError("a search page could not be read")
            out.extend(resources_of(nxt))
            page = nxt
            pages_done += 1
        return out

    async def fetch(self, query: str) -> list[dict[str, Any]]:
        """Resources for a prefetch-style query ("Patient/1" or "Observation?patient=1")."""
        data = await self.get_json(query)
        if data is None:
            return []
        if data.get("resourceType") == "OperationOutcome":
            raise FhirFetchError("FHIR server answered with an OperationOutcome")
        if data.get("resourceType") == "Bundle":
            return await self.follow(data)
        return [data]
