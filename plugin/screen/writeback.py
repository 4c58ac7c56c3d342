"""Findings back into the record: per patient, one FHIR transaction Bundle holding, for each
supported or conflicting finding, a DetectedIssue and its Provenance.

Both are conditional creates (`ifNoneExist`) on an identifier derived from patient, item and
bundle hash: a rerun, or a resumed run, creates nothing new. The patient id is sent only here,
to the EHR's own FHIR server.
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from itertools import groupby
from pathlib import Path
from typing import Any

import httpx
from medeventgraph.model.version import __version__

from .report import read_lines

__all__ = ["FINDING_SYSTEM", "WriteBackStats", "finding_identifier", "transaction_for", "write_back"]

FINDING_SYSTEM = "https://medeventgraph.org/fhir/NamingSystem/screening-finding"
ITEM_SYSTEM = "https://medeventgraph.org/fhir/CodeSystem/watch-item"
BUNDLE_HASH_EXT = "https://medeventgraph.org/fhir/StructureDefinition/evidence-bundle-hash"
VERDICT_EXT = "https://medeventgraph.org/fhir/StructureDefinition/verdict"
_PARTICIPANT = "http://terminology.hl7.org/CodeSystem/provenance-participant-type"
FINDINGS = ("supported", "conflicting")


@dataclass
class WriteBackStats:
    patients: int = 0
    findings: int = 0
    created: int = 0
    existing: int = 0
    failed: list[str] = field(default_factory=list)  # diagnostics, never ids


def finding_identifier(patient: str, item: str, bundle_hash: str) -> str:
    return hashlib.sha256(f"{patient}|{item}|{bundle_hash}".encode()).hexdigest()[:40]


def _cited(line: dict[str, Any]) -> tuple[list[str], list[str]]:
    """(every cited resource, the documents of cited note spans), each once, in citation order."""
    resources = list(dict.fromkeys(c.split("#", 1)[0] for c in line.get("citations", [])))
    documents = list(dict.fromkeys(c.split("#", 1)[0] for c in line.get("citations", []) if "#" in c))
    return resources, documents


def _entries(line: dict[str, Any], now: str) -> list[dict[str, Any]]:
    ident = finding_identifier(line["patient"], line["item"], line["bundle_hash"])
    issue_url = f"urn:uuid:{uuid.uuid5(uuid.NAMESPACE_URL, FINDING_SYSTEM + '/' + ident)}"
    prov_url = f"urn:uuid:{uuid.uuid5(uuid.NAMESPACE_URL, FINDING_SYSTEM + '/provenance/' + ident)}"
    resources, documents = _cited(line)
    hash_ext = {"url": BUNDLE_HASH_EXT, "valueString": line["bundle_hash"]}
    issue: dict[str, Any] = {
        "resourceType": "DetectedIssue", "status": "preliminary",
        "extension": [hash_ext, {"url": VERDICT_EXT, "valueCode": line["verdict"]}],
        "identifier": [{"system": FINDING_SYSTEM, "value": ident}],
        "code": {"coding": [{"system": ITEM_SYSTEM, "code": line["item"], "display": line.get("title", line["item"])}],
                 "text": line.get("title", line["item"])},
        "patient": {"reference": f"Patient/{line['patient']}"},
        "identifiedDateTime": now,
        "implicated": [{"reference": r} for r in resources],
        "detail": (line.get("finding") or {}).get("detail") or f"{line['verdict']}: {line.get('title', line['item'])}",
    }
    if documents:
        issue["evidence"] = [{"detail": [{"reference": d} for d in documents]}]
    provenance = {
        "resourceType": "Provenance",
        "meta": {"tag": [{"system": FINDING_SYSTEM, "code": ident}]},
        "extension": [hash_ext],
        "target": [{"reference": issue_url}],
        "recorded": now,
        "agent": [{"type": {"coding": [{"system": _PARTICIPANT, "code": "assembler"}]},
                   "who": {"display": f"MedEventGraph {__version__}"}}],
        "entity": [{"role": "source", "what": {"reference": r}} for r in resources],
    }
    return [
        {"fullUrl": issue_url, "resource": issue,
         "request": {"method": "POST", "url": "DetectedIssue", "ifNoneExist": f"identifier={FINDING_SYSTEM}|{ident}"}},
        {"fullUrl": prov_url, "resource": provenance,
         "request": {"method": "POST", "url": "Provenance", "ifNoneExist": f"_tag={FINDING_SYSTEM}|{ident}"}},
    ]


def transaction_for(lines: Iterable[dict[str, Any]], now: str | None = None) -> dict[str, Any] | None:
    """The transaction Bundle for one patient's lines, or None when nothing is a finding."""
    now = now or datetime.now(UTC).isoformat(timespec="seconds")
    entries = [e for line in lines if line["verdict"] in FINDINGS for e in _entries(line, now)]
    return {"resourceType": "Bundle", "type": "transaction", "entry": entries} if entries else None


def _by_patient(verdicts: Path) -> Iterator[list[dict[str, Any]]]:
    # A patient's lines are one contiguous block in verdicts.ndjson (journal.py).
    for _, lines in groupby(read_lines(verdicts), key=lambda line: line["patient"]):
        yield list(lines)


def write_back(verdicts: Path, base_url: str, *, timeout: float = 30.0, client: httpx.Client | None = None
               ) -> WriteBackStats:
    stats = WriteBackStats()
    own = client is None
    http = client or httpx.Client(timeout=timeout, headers={"Accept": "application/fhir+json"})
    try:
        for n, lines in enumerate(_by_patient(verdicts), start=1):
            bundle = transaction_for(lines)
            if bundle is None:
                continue
            stats.patients += 1
            stats.findings += len(bundle["entry"]) // 2
            try:
                resp = http.post(base_url.rstrip("/"), json=bundle,
                                 headers={"Content-Type": "application/fhir+json"})
            except httpx.HTTPError as exc:
                stats.failed.append(f"patient block {n}: {type(exc).__name__}")
                continue
            if resp.status_code >= 300:
                stats.failed.append(f"patient block {n}: HTTP {resp.status_code}")
                continue
            for entry in resp.json().get("entry", []):
                status = str(entry.get("response", {}).get("status", ""))
                if status.startswith("201"):
                    stats.created += 1
                elif status.startswith("200"):
                    stats.existing += 1
                else:
                    stats.failed.append(f"patient block {n}: entry status {status[:40]}")
    finally:
        if own:
            http.close()
    return stats
