"""Protocols with their own data and label rules, run beside the main ones (benchmarks/README.md).

Each is a module listed in `protocols.STANDALONE` with `NAME`, `TITLE`, `DATA` (folder under
the shared data root) and `cases(folder, smoke)`: it reads the raw FHIR NDJSON itself (gzip +
json, no project code) and writes each label from the record by its documented rule. This
module then runs the verifier (B6, structured record) on every case and scores it; a case's
`baseline` query, when present, is the same question as the record would have been asked
before the protocol's feature existed, run in the same pass for the comparison.

A protocol whose labels come with the data (N1: labelled questions, binary gold, two splits)
brings its own `run(folder, smoke=, log=)` instead of `cases`; its result says `kind` and is
written by its own report section (notes_report.py).
"""

from __future__ import annotations

import time
from collections import Counter, defaultdict
from dataclasses import dataclass
from importlib import import_module
from pathlib import Path
from typing import Any

__all__ = ["StandaloneCase", "run_standalone", "section"]


@dataclass(frozen=True)
class StandaloneCase:
    id: str
    patient: str  # Patient id in the folder
    family: str  # how the case was built (see the protocol's rules)
    expected: str  # supported | refuted | insufficient
    query: dict[str, Any]
    baseline: dict[str, Any] | None = None  # the same question without the feature under test

    @property
    def binary(self) -> str:
        return "supported" if self.expected == "supported" else "not_supported"


def _rates(rows: list[tuple[str, str, str]]) -> dict[str, Any]:
    """rows: (expected, binary gold, verdict)."""
    pos = [v for _, b, v in rows if b == "supported"]
    neg = [v for _, b, v in rows if b != "supported"]
    recall = sum(v == "supported" for v in pos) / len(pos) if pos else None
    fsr = sum(v == "supported" for v in neg) / len(neg) if neg else None
    spec = None if fsr is None else 1 - fsr
    ba = (recall + spec) / 2 if recall is not None and spec is not None else None
    return {"n": len(rows), "positives": len(pos), "ba": ba, "sup_recall": recall, "fsr": fsr,
            "four_way_agreement": sum(e == v for e, _, v in rows) / len(rows) if rows else None}


def _verify_all(folder: Path, cases: list[StandaloneCase], notes: bool = False) -> tuple[list[dict[str, Any]], float]:
    from medeventgraph.api import load, make_note_pipeline
    from medeventgraph.core.answer import verify_query
    from medeventgraph.core.index.patient_index import build_index
    from medeventgraph.core.query.model import VerificationQuery
    from medeventgraph.model.settings import Settings

    settings = Settings(notes=notes)  # a protocol over notes (module NOTES = True) runs the note pipeline
    pipeline = make_note_pipeline(settings)
    result = load(folder)
    by_patient: dict[str, list[StandaloneCase]] = defaultdict(list)
    for c in cases:
        by_patient[c.patient].append(c)
    out, seconds = [], 0.0
    for patient in sorted(by_patient):
        index = build_index(result.for_patient(patient), settings, notes=pipeline)
        for c in by_patient[patient]:
            row: dict[str, Any] = {"case": c.id, "family": c.family, "expected": c.expected, "binary": c.binary}
            for key, raw in (("verdict", c.query), ("baseline", c.baseline)):
                if raw is None:
                    continue
                t = time.perf_counter()
                verdict = verify_query(index, VerificationQuery.model_validate(raw), settings)
                seconds += time.perf_counter() - t
                row[key] = verdict.verdict.value
            out.append(row)
    return out, seconds


def run_standalone(data: Path, *, smoke: bool, log=print) -> dict[str, Any]:
    from medeventgraph.evaluation.protocols import STANDALONE

    results: dict[str, Any] = {}
    for name in STANDALONE:
        mod = import_module(f"medeventgraph.evaluation.{name}")
        folder = data / mod.DATA
        if not folder.is_dir():
            log(f"{mod.NAME}: {folder} not found; skipped")
            results[mod.NAME] = {"title": mod.TITLE, "skipped": f"{mod.DATA} not found"}
            continue
        if hasattr(mod, "run"):
            results[mod.NAME] = mod.run(folder, smoke=smoke, log=log)
            continue
        cases = mod.cases(folder, smoke)
        log(f"{mod.NAME}: {len(cases)} queries")
        rows, seconds = _verify_all(folder, cases, getattr(mod, "NOTES", False))
        families = sorted({r["family"] for r in rows})
        res: dict[str, Any] = {
            "title": mod.TITLE, "data": mod.DATA, "patients": len({c.patient for c in cases}),
            "B6": _rates([(r["expected"], r["binary"], r["verdict"]) for r in rows]),
            "by_family": {f: {"n": sum(r["family"] == f for r in rows),
                              "verdicts": dict(Counter(r["verdict"] for r in rows if r["family"] == f)),
                              "expected": sorted({r["expected"] for r in rows if r["family"] == f})}
                          for f in families},
            "ms_per_query": round(1000 * seconds / max(1, sum(1 + ("baseline" in r) for r in rows)), 2),
            "rows": rows,
        }
        with_base = [r for r in rows if "baseline" in r]
        if with_base:
            res["baseline"] = {"about": mod.BASELINE,
                               **_rates([(r["expected"], r["binary"], r["baseline"]) for r in with_base]),
                               "B6_same_cases": _rates([(r["expected"], r["binary"], r["verdict"]) for r in with_base])}
        results[mod.NAME] = res
    return results


def _pct(x: float | None) -> str:
    return "n/a" if x is None else f"{100 * x:.1f}"


def section(standalone: dict[str, Any]) -> list[str]:
    """EVAL.md lines for the standalone protocols (rules: benchmarks/README.md)."""
    lines: list[str] = []
    for name, res in standalone.items():
        if "skipped" in res:
            lines += [f"## {name}: {res['title']}", "", f"Skipped: {res['skipped']}.", ""]
            continue
        if res.get("kind") == "labelled-notes":
            from medeventgraph.evaluation.notes_report import section as labelled_section

            lines += labelled_section(name, res)
            continue
        lines += [f"## {name}: {res['title']}", ""]
        b6 = res["B6"]
        summary = (f"Data `{res['data']}`, {res['patients']} patients, {b6['n']} queries ({b6['positives']} "
                   f"supported). B6 on the structured record: BA {_pct(b6['ba'])}, supported recall "
                   f"{_pct(b6['sup_recall'])}, FSR {_pct(b6['fsr'])}, four-way agreement "
                   f"{_pct(b6['four_way_agreement'])}; {res['ms_per_query']} ms/query.")
        lines += [summary, "", "| family | n | expected | B6 verdicts |", "|---|---|---|---|"]
        for fam, per in res["by_family"].items():
            verdicts = ", ".join(f"{k} {v}" for k, v in sorted(per["verdicts"].items()))
            lines.append(f"| {fam} | {per['n']} | {' / '.join(per['expected'])} | {verdicts} |")
        if "baseline" in res:
            base, same = res["baseline"], res["baseline"]["B6_same_cases"]
            recall = (f", supported recall {_pct(base['sup_recall'])} (B6 {_pct(same['sup_recall'])})"
                      if base["positives"] else "")
            lines += ["", (f"Same run, same {base['n']} cases, {base['about']}: FSR {_pct(base['fsr'])} "
                      f"(B6 {_pct(same['fsr'])}){recall}.")]
        lines.append("")
    return lines
