"""R1 cross-admission order on real MIMIC-IV demo data (rules: benchmarks/README.md).

Encounter diagnoses there have no date of their own, only an encounter reference; their
order comes from the admissions' periods alone. Labels are computed here from the raw Bulk
NDJSON (gzip + json only, no project code):

- a patient's admissions are the Encounter.ndjson resources (ICU stays are not admissions);
- a code is *single-admission* when the patient's Conditions with that (system, code) all
  reference one admission;
- `cross`: admissions A and B with A.end < B.start, x single-admission in A, y in B:
  "x before y" is supported; `reversed`: "y before x" is refuted;
- `same`: x and y both single-admission in the same admission: "x before y" is insufficient
  (their order within the stay is not recorded).

Events name codes only (no text), so grounding is exact; scope is the patient. Per patient
at most 3 cross pairs (each with its reversal) and 2 same pairs, drawn with a seeded RNG.
"""

from __future__ import annotations

import gzip
import json
import random
from collections import defaultdict
from datetime import datetime
from pathlib import Path

from medeventgraph.evaluation.standalone import StandaloneCase

__all__ = ["BASELINE", "DATA", "NAME", "TITLE", "cases"]

NAME = "R1"
TITLE = "cross-admission order of encounter diagnoses (MIMIC-IV demo, encounter-bounded times)"
DATA = "mimic-iv-demo-fhir-partial"
BASELINE = ""
CROSS_PER_PATIENT, SAME_PER_PATIENT, SMOKE_PATIENTS = 3, 2, 4


def _read(folder: Path, name: str) -> list[dict]:
    path = folder / f"{name}.ndjson.gz"
    if not path.exists():
        return []
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def _periods(folder: Path) -> dict[str, tuple[str, datetime, datetime]]:
    """Admission id -> (patient id, start, end), for admissions with both ends."""
    out = {}
    for e in _read(folder, "Encounter"):
        period = e.get("period") or {}
        if "start" in period and "end" in period:
            patient = e["subject"]["reference"].removeprefix("Patient/")
            out[e["id"]] = (patient, datetime.fromisoformat(period["start"]), datetime.fromisoformat(period["end"]))
    return out


def _single_admission_codes(folder: Path, admissions: dict) -> dict[str, dict[str, list[tuple[str, str]]]]:
    """patient -> admission -> sorted (system, code) diagnosed in that admission only."""
    seen: dict[tuple[str, str, str], set[str]] = defaultdict(set)
    for c in _read(folder, "Condition"):
        enc = (c.get("encounter") or {}).get("reference", "").removeprefix("Encounter/")
        if enc not in admissions:
            continue
        patient = c["subject"]["reference"].removeprefix("Patient/")
        for coding in (c.get("code") or {}).get("coding", []):
            if coding.get("system") and coding.get("code"):
                seen[(patient, coding["system"], coding["code"])].add(enc)
    out: dict[str, dict[str, list[tuple[str, str]]]] = defaultdict(lambda: defaultdict(list))
    for (patient, system, code), encs in sorted(seen.items()):
        if len(encs) == 1:
            out[patient][next(iter(encs))].append((system, code))
    return out


def _query(qid: str, x: tuple[str, str], y: tuple[str, str]) -> dict:
    def event(eid: str, code: tuple[str, str]) -> dict:
        return {"id": eid, "kind": "condition", "codes": [{"system": code[0], "code": code[1]}]}

    return {"id": qid, "events": [event("e0", x), event("e1", y)],
            "relations": [{"from": "e0", "to": "e1", "type": "before"}], "scope": "patient"}


def cases(folder: Path, smoke: bool, seed: int = 7) -> list[StandaloneCase]:
    admissions = _periods(folder)
    codes = _single_admission_codes(folder, admissions)
    patients = sorted(codes)[:SMOKE_PATIENTS] if smoke else sorted(codes)
    out: list[StandaloneCase] = []
    for patient in patients:
        rng = random.Random(f"{seed}:{patient}")
        per = codes[patient]
        ordered = sorted(per, key=lambda a: admissions[a][1])
        cross = [(a, b) for i, a in enumerate(ordered) for b in ordered[i + 1:]
                 if admissions[a][2] < admissions[b][1]]
        rng.shuffle(cross)
        for a, b in cross[:CROSS_PER_PATIENT]:
            x, y = rng.choice(per[a]), rng.choice(per[b])
            out.append(StandaloneCase(f"R1-{patient[:8]}-{a[:8]}-{b[:8]}-c", patient, "cross", "supported",
                                      _query("R1-cross", x, y)))
            out.append(StandaloneCase(f"R1-{patient[:8]}-{a[:8]}-{b[:8]}-r", patient, "reversed", "refuted",
                                      _query("R1-reversed", y, x)))
        same = [a for a in ordered if len(per[a]) >= 2]
        rng.shuffle(same)
        for a in same[:SAME_PER_PATIENT]:
            x, y = rng.sample(per[a], 2)
            out.append(StandaloneCase(f"R1-{patient[:8]}-{a[:8]}-s", patient, "same", "insufficient",
                                      _query("R1-same", x, y)))
    return out
