"""Both engines on the bundled Synthea, clinosim and MIMIC subsets: the same verdicts, line
for line; outputs (verdicts, summary, report) agree with each other."""

from __future__ import annotations

import csv
from collections import Counter
from pathlib import Path

import orjson
from medeventgraph.model.settings import Settings
from medeventgraph.screen import ScreenJob, Selection, run_screen

from .conftest import CLINOSIM, WATCHLIST, sorted_lines


def _lines(out: Path) -> list[dict]:
    return [orjson.loads(ln) for ln in sorted_lines(out / "verdicts.ndjson")]


def test_local_run_covers_every_selected_patient_and_item(local_run: Path, selected: frozenset[str]) -> None:
    lines = _lines(local_run)
    pairs = Counter((ln["patient"], ln["item"]) for ln in lines)
    assert set(pairs.values()) == {1}, "each patient x item exactly once"
    patients = {p for p, _ in pairs}
    assert patients == selected and len(lines) == 5 * len(selected)  # 5 watch-list items
    aki = next(ln for ln in lines if ln["patient"] == "pt-104b2b36f19f" and ln["item"] == "nephrotoxic-aki")
    assert aki["verdict"] == "supported" and aki["failure"] is None
    assert aki["citations"] and aki["bundle_hash"].startswith("sha256:")
    assert any(e["polarity"] == "supports" for e in aki["evidence"])
    assert all(c.split("/")[0] != "Patient" or c.endswith("pt-104b2b36f19f") for c in aki["citations"])


def test_summary_and_report_agree_with_verdicts(local_run: Path) -> None:
    lines = _lines(local_run)
    counts = Counter((ln["item"], ln["verdict"]) for ln in lines)
    with (local_run / "summary.csv").open(encoding="utf-8") as f:
        for row in csv.DictReader(f):
            for label in ("supported", "conflicting", "refuted", "insufficient"):
                assert int(row[label]) == counts[(row["item"], label)]
    page = (local_run / "report.html").read_text(encoding="utf-8")
    findings = [ln for ln in lines if ln["verdict"] in ("supported", "conflicting")]
    assert findings and "<svg" in page and "http" not in page.split("<svg", 1)[0].replace(
        "http://www.w3.org", "")  # no external assets
    for n in range(1, len(findings) + 1):
        assert f'href="#f{n}"' in page and f'id="f{n}"' in page
    assert f'id="f{len(findings) + 1}"' not in page


def test_ray_engine_gives_identical_verdicts(export_dir: Path, local_run: Path, selected: frozenset[str],
                                             ray_cluster: str, tmp_path: Path) -> None:
    out = tmp_path / "ray"
    job = ScreenJob(export_dir, WATCHLIST, out, engine="ray", workers=2, selection=Selection(patients=selected),
                    progress=False)
    summary = run_screen(job, Settings())
    assert summary.patients == len(selected)
    assert sorted_lines(out / "verdicts.ndjson") == sorted_lines(local_run / "verdicts.ndjson")
    assert (out / "summary.csv").read_bytes() == (local_run / "summary.csv").read_bytes()


def test_local_workers_give_identical_verdicts(export_dir: Path, local_run: Path, tmp_path: Path) -> None:
    out = tmp_path / "two"
    job = ScreenJob(export_dir / "clinosim", WATCHLIST, out, workers=2, selection=Selection(patients=CLINOSIM),
                    progress=False)
    run_screen(job, Settings())
    clinosim = [ln for ln in sorted_lines(local_run / "verdicts.ndjson") if b'"patient":"pt-' in ln]
    assert sorted_lines(out / "verdicts.ndjson") == clinosim
