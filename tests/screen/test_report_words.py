"""The screening report reads like the cards: each finding's rows show the human date, the kind
of entry and the source's words (the wording layer's evidence lines), and a computed finding
says it was computed; ISO times, granularities, scores and the bundle hash stay out of what
people read (the hash only in the finding's audit line). verdicts.ndjson keeps its machine rows."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import orjson
from medeventgraph.screen.patient import _evidence
from medeventgraph.screen.report import write_report
from medeventgraph.screen.wording import finding_words

from ..wording.records import RISE_AT, kdigo_rise, supported


def _report(tmp_path: Path) -> tuple[str, dict]:
    verdict, query = supported(kdigo_rise())
    line = {"patient": "t-1", "item": "nephrotoxic-aki", "title": "AKI after a nephrotoxic drug",
            "verdict": verdict.verdict.value, "failure": None, "citations": verdict.citations,
            "bundle_hash": verdict.bundle_hash, "query": verdict.id, "evidence": _evidence(verdict),
            "finding": finding_words(verdict, query)}
    verdicts = tmp_path / "verdicts.ndjson"
    verdicts.write_bytes(orjson.dumps(line) + b"\n")
    page = tmp_path / "report.html"
    write_report(page, verdicts, {"nephrotoxic-aki": line["title"]},
                 {"nephrotoxic-aki": Counter(supported=1)}, patients=1, issues=0)
    return page.read_text(encoding="utf-8"), line


def test_report_rows_read_in_the_wording_layers_words(tmp_path: Path) -> None:
    html, _ = _report(tmp_path)
    section = html[html.index('<section id="f1">'):]
    assert "<h3>Creatinine rise meeting KDIGO criteria 21 hours 43 minutes after vancomycin" in section
    rows = re.findall(r"<tr class=\"(\w+)\">(.*?)</tr>", section)
    assert [cls for cls, _ in rows] == ["supports", "supports"]
    newest = rows[0][1]
    assert "<td>16 Jun 2024 08:01</td><td>Computed from results</td>" in newest
    assert "<mark>Creatinine rise (KDIGO)</mark>, 0.9 → 2.1 mg/dL (+1.20 mg/dL within 48 h)" in newest
    assert "<td>15 Jun 2024 10:18</td><td>Medication given</td>" in rows[1][1]
    readable, audit = section.split('<p class="audit">', 1)
    for internal in ("2024-06-16T", "(second)", "occurrence time", "sha256:", "S+", "derived/kdigo"):
        assert internal not in readable, internal
    assert "sha256:" in audit and "S+ 1.00" in audit and "patient t-1" in audit


def test_verdicts_keep_their_machine_evidence_rows(tmp_path: Path) -> None:
    _, line = _report(tmp_path)
    machine = {e["reference"]: e for e in line["evidence"]}
    assert machine["Observation/t-cr2"]["time"] == RISE_AT and machine["Observation/t-cr2"]["origin"] == "derived"
    assert line["finding"]["evidence"][0]["when"] == "16 Jun 2024 08:01"
