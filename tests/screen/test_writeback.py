"""Findings written back to the loopback Medplum FHIR server: DetectedIssue + Provenance in one
transaction per patient, read back over HTTP, and a rerun creates nothing new."""

from __future__ import annotations

from pathlib import Path

import httpx
import orjson
from medeventgraph.model.settings import Settings
from medeventgraph.screen import ScreenJob, run_screen
from medeventgraph.screen.writeback import (
    BUNDLE_HASH_EXT,
    FINDING_SYSTEM,
    finding_identifier,
    transaction_for,
)

from .conftest import REPO, WATCHLIST

CDS_DATA = REPO / "tests" / "cds_hooks" / "data"  # the server loads these patients too


def _search(base: str, path: str) -> list[dict]:
    bundle = httpx.get(f"{base}/{path}", timeout=30).json()
    return [e["resource"] for e in bundle.get("entry", [])]


def test_write_back_creates_once_and_reads_back(fhir_server: str, tmp_path: Path) -> None:
    job = ScreenJob(CDS_DATA, WATCHLIST, tmp_path / "out", write_back=fhir_server, progress=False)
    first = run_screen(job, Settings())
    lines = [orjson.loads(ln) for ln in (tmp_path / "out" / "verdicts.ndjson").read_bytes().splitlines()]
    findings = [ln for ln in lines if ln["verdict"] in ("supported", "conflicting")]
    assert findings and first.write_back is not None
    assert first.write_back.failed == [] and first.write_back.findings == len(findings)

    for line in findings:
        ident = finding_identifier(line["patient"], line["item"], line["bundle_hash"])
        issues = _search(fhir_server, f"DetectedIssue?identifier={FINDING_SYSTEM}|{ident}")
        assert len(issues) == 1
        issue = issues[0]
        assert issue["patient"]["reference"] == f"Patient/{line['patient']}"
        assert issue["code"]["coding"][0]["code"] == line["item"]
        assert {r["reference"] for r in issue["implicated"]} == {c.split("#")[0] for c in line["citations"]}
        assert issue["detail"] == line["finding"]["detail"] and len(line["finding"]["summary"]) < 140
        provs = _search(fhir_server, f"Provenance?_tag={FINDING_SYSTEM}|{ident}")
        assert len(provs) == 1
        prov = provs[0]
        assert prov["target"] == [{"reference": f"DetectedIssue/{issue['id']}"}]
        assert {e["what"]["reference"] for e in prov["entity"]} == {c.split("#")[0] for c in line["citations"]}
        assert {"url": BUNDLE_HASH_EXT, "valueString": line["bundle_hash"]} in prov["extension"]
        assert prov["agent"][0]["who"]["display"].startswith("MedEventGraph ")

    before = len(_search(fhir_server, "DetectedIssue?_count=1000")), len(_search(fhir_server, "Provenance?_count=1000"))
    again = run_screen(job, Settings())
    assert again.patients == 0 and again.write_back is not None
    assert again.write_back.created == 0 and again.write_back.existing == 2 * len(findings)
    after = len(_search(fhir_server, "DetectedIssue?_count=1000")), len(_search(fhir_server, "Provenance?_count=1000"))
    assert after == before


def test_note_citations_become_evidence_documents() -> None:
    line = {"patient": "p1", "item": "x", "title": "X then Y", "verdict": "conflicting",
            "bundle_hash": "sha256:ab", "citations": ["Condition/c1", "DocumentReference/d1#s1-5",
                                                      "DocumentReference/d1#s9-12"]}
    bundle = transaction_for([line, {**line, "item": "z", "verdict": "refuted"}], now="2024-01-01T00:00:00Z")
    assert bundle is not None and bundle["type"] == "transaction" and len(bundle["entry"]) == 2
    issue = bundle["entry"][0]["resource"]
    assert issue["evidence"] == [{"detail": [{"reference": "DocumentReference/d1"}]}]
    assert [r["reference"] for r in issue["implicated"]] == ["Condition/c1", "DocumentReference/d1"]
    assert bundle["entry"][0]["request"]["ifNoneExist"].endswith(finding_identifier("p1", "x", "sha256:ab"))
    assert transaction_for([{**line, "verdict": "insufficient"}]) is None
