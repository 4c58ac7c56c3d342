"""Reference strings -> "Type/id" keys.

Handles the forms we meet: `urn:uuid:`/`urn:oid:` full URLs inside a Bundle, relative
`Type/id` (optionally `/_history/v`), absolute URLs ending in `Type/id`, and conditional
references (`Organization?identifier=system|value`, what Synthea writes towards its companion
bundles). A conditional reference resolves only when a resource with that identifier is loaded;
otherwise it is quietly unresolved, since it names something outside the patient's record.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qsl

from medeventgraph.fhir_adapters.resource_types import KNOWN_RESOURCE_TYPES

__all__ = ["ReferenceIndex", "key_from_full_url", "reference_string"]


def reference_string(ref: Any) -> str | None:
    """The literal reference of a Reference element (or a bare string), if any."""
    if isinstance(ref, dict):
        ref = ref.get("reference")
    if isinstance(ref, str) and ref:
        return ref
    return None


def _key_from_path(s: str) -> str | None:
    parts = s.split("/")
    if len(parts) >= 4 and parts[-2] == "_history":
        parts = parts[:-2]
    if len(parts) >= 2 and parts[-1] and parts[-2] in KNOWN_RESOURCE_TYPES:
        return f"{parts[-2]}/{parts[-1]}"
    return None


def key_from_full_url(full_url: Any, resource_type: str) -> str | None:
    """Derive "Type/id" for a resource without an id from its Bundle fullUrl."""
    if not isinstance(full_url, str) or not full_url:
        return None
    if full_url.startswith(("urn:uuid:", "urn:oid:")):
        ident = full_url[9:] if full_url.startswith("urn:uuid:") else full_url[8:]
        return f"{resource_type}/{ident}" if ident else None
    key = _key_from_path(full_url)
    if key is not None and key.startswith(resource_type + "/"):
        return key
    return None


class ReferenceIndex:
    """Resolves references against everything loaded in one ingest."""

    def __init__(self, resources: dict[str, dict[str, Any]]):
        self.full_urls: dict[str, str] = {}
        self._resources = resources
        self._cache: dict[str, str | None] = {}
        self._identifiers: dict[str, dict[str, str]] = {}  # type -> "system|value" -> key
        self._ids: dict[str, str | None] | None = None  # bare id -> key (None: ambiguous)

    def add_full_url(self, full_url: str, key: str) -> None:
        self.full_urls[full_url] = key

    def resolve(self, ref: Any) -> str | None:
        """"Type/id" of the referenced resource, or None (contained `#x`, unknown urn, logical
        reference by identifier only, unresolved conditional reference)."""
        s = reference_string(ref)
        if s is None:
            return None
        hit = self.full_urls.get(s)
        if hit is not None:
            return hit
        try:
            return self._cache[s]
        except KeyError:
            pass
        out: str | None
        if s.startswith("urn:uuid:"):
            out = self._by_uuid(s[9:])
        elif s[0] == "#" or s.startswith("urn:"):
            out = None
        elif "?" in s:
            out = self._conditional(s)
        else:
            out = _key_from_path(s)
        self._cache[s] = out
        return out

    def is_unresolvable_literal(self, ref: Any) -> bool:
        """A literal reference that should resolve inside the input but does not (urn:uuid
        that is not any entry's fullUrl nor any resource's id). Relative `Type/id` references
        always name their target, so they count as resolvable even when the target was not loaded."""
        s = reference_string(ref)
        return s is not None and s.startswith("urn:") and s not in self.full_urls and self.resolve(s) is None

    def _by_uuid(self, ident: str) -> str | None:
        # Resources copied out of a transaction Bundle (a prefetch answered from Synthea data,
        # NDJSON split by type) keep `urn:uuid:<id>` references but lose their fullUrls; the
        # uuid is then the target's id. Used only when exactly one loaded resource has that id.
        if self._ids is None:
            seen: dict[str, str | None] = {}
            for key in self._resources:
                rid = key.partition("/")[2]
                seen[rid] = None if rid in seen else key
            self._ids = seen
        return self._ids.get(ident)

    def _conditional(self, s: str) -> str | None:
        rtype, _, query = s.partition("?")
        if rtype not in KNOWN_RESOURCE_TYPES:
            return None
        wanted = [v for k, v in parse_qsl(query) if k == "identifier"]
        if not wanted:
            return None
        index = self._identifiers.get(rtype)
        if index is None:
            index = self._identifier_index(rtype)
        for w in wanted:
            key = index.get(w)
            if key is not None:
                return key
        return None

    def _identifier_index(self, rtype: str) -> dict[str, str]:
        # Built once per type on first use, so bundles without conditional references pay nothing.
        index: dict[str, str] = {}
        prefix = rtype + "/"
        for key, res in self._resources.items():
            if not key.startswith(prefix):
                continue
            idents = res.get("identifier")
            if isinstance(idents, dict):
                idents = [idents]
            if not isinstance(idents, list):
                continue
            for ident in idents:
                if not isinstance(ident, dict):
                    continue
                value = ident.get("value")
                if not isinstance(value, str):
                    continue
                system = ident.get("system")
                if isinstance(system, str):
                    index.setdefault(f"{system}|{value}", key)
                index.setdefault(value, key)
        self._identifiers[rtype] = index
        return index
