"""R2 ordered vs given on the clinosim inpatient stays (rules: benchmarks/README.md).

"Was drug D given within W of the lactate?" is about administration; an order for D inside
the window is not a dose. Labels are computed here from the raw Bulk NDJSON (gzip + json
only, no project code). Times in minutes after a lactate draw (any lactate Observation,
LOINC 2524-7, effectiveDateTime); D is an RxNorm code; doses are MedicationAdministration
with status completed (effectiveDateTime), other-status administrations are `blocked`;
orders are MedicationRequest.authoredOn. A margin M = 2 min covers minute-granularity stamps.

- `order_only` (the trap): W such that some order of D falls in [M, W - M] after some lactate
  and no dose or blocked administration of D falls in [-M, W + M] of any lactate:
  "D administered after lactate within W" is not supported (expected refuted: the doses
  that exist lie outside the window). W is midway between the first such order gap and the
  first later dose gap, and the case is kept only if that leaves the margins.
- `ordered`: the same W, "D ordered after lactate within W": supported.
- `given`: W = first dose gap (>= M) rounded up + 5 min, no blocked administration in
  [-M, W + M]: "D administered after lactate within W": supported.

Every `order_only` case also runs as `baseline`: the same question with no action (any
medication record), which is what the query model could say before actions existed.
Scope is the patient; one case per (patient, drug, family); smoke keeps 5 patients.
"""

from __future__ import annotations

import gzip
import json
import math
from collections import defaultdict
from datetime import datetime
from pathlib import Path

from medeventgraph.evaluation.standalone import StandaloneCase

__all__ = ["BASELINE", "DATA", "NAME", "TITLE", "cases"]

NAME = "R2"
TITLE = "ordered vs given: orders in the window must not support an administration (clinosim)"
DATA = "clinosim/fhir_r4"
BASELINE = "the question without an action (any medication record, the behaviour before #13)"
RXNORM = "http://www.nlm.nih.gov/research/umls/rxnorm"
LACTATE = ("http://loinc.org", "2524-7")
MARGIN, SMOKE_PATIENTS = 2.0, 5


def _read(folder: Path, name: str) -> list[dict]:
    with gzip.open(folder / f"{name}.ndjson.gz", "rt", encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def _when(text: str) -> datetime:
    return datetime.fromisoformat(text)  # Python 3.11 reads "Z"


def _patient(r: dict) -> str:
    return r["subject"]["reference"].removeprefix("Patient/")


def _rxnorm(r: dict) -> str | None:
    codings = (r.get("medicationCodeableConcept") or {}).get("coding", [])
    return next((c["code"] for c in codings if c.get("system") == RXNORM and c.get("code")), None)


def _gaps(times: list[datetime], anchors: list[datetime]) -> list[float]:
    return sorted((t - a).total_seconds() / 60 for t in times for a in anchors)


def _query(qid: str, drug: str, action: str | None, within: int) -> dict:
    med: dict = {"id": "e0", "kind": "medication", "codes": [{"system": RXNORM, "code": drug}]}
    if action:
        med["action"] = action
    lab = {"id": "e1", "kind": "lab", "codes": [{"system": LACTATE[0], "code": LACTATE[1]}]}
    return {"id": qid, "events": [med, lab], "scope": "patient",
            "relations": [{"from": "e0", "to": "e1", "type": "after", "within": f"PT{within}M"}]}


def cases(folder: Path, smoke: bool) -> list[StandaloneCase]:
    lactates: dict[str, list[datetime]] = defaultdict(list)
    for o in _read(folder, "Observation"):
        codes = {(c.get("system"), c.get("code")) for c in (o.get("code") or {}).get("coding", [])}
        if LACTATE in codes and "effectiveDateTime" in o:
            lactates[_patient(o)].append(_when(o["effectiveDateTime"]))
    doses: dict[tuple[str, str], list[datetime]] = defaultdict(list)
    blocked: dict[tuple[str, str], list[datetime]] = defaultdict(list)
    for a in _read(folder, "MedicationAdministration"):
        drug = _rxnorm(a)
        if drug and "effectiveDateTime" in a:
            (doses if a.get("status") == "completed" else blocked)[(_patient(a), drug)].append(
                _when(a["effectiveDateTime"]))
    orders: dict[tuple[str, str], list[datetime]] = defaultdict(list)
    for r in _read(folder, "MedicationRequest"):
        drug = _rxnorm(r)
        if drug and "authoredOn" in r:
            orders[(_patient(r), drug)].append(_when(r["authoredOn"]))
    patients = sorted(lactates)[:SMOKE_PATIENTS] if smoke else sorted(lactates)
    out: list[StandaloneCase] = []
    for patient in patients:
        anchors = lactates[patient]
        for drug in sorted({d for p, d in orders if p == patient} | {d for p, d in doses if p == patient}):
            key = (patient, drug)
            dose_gaps, blocked_gaps = _gaps(doses[key], anchors), _gaps(blocked[key], anchors)
            order_gaps = [g for g in _gaps(orders[key], anchors) if g >= MARGIN]
            later = [g for g in dose_gaps if g >= -MARGIN]
            if order_gaps and later and later[0] > order_gaps[0] + 2 * MARGIN + 1:
                w = math.floor((order_gaps[0] + later[0]) / 2)
                clear = not any(-MARGIN <= g <= w + MARGIN for g in blocked_gaps)
                if order_gaps[0] <= w - MARGIN and later[0] > w + MARGIN and clear:
                    tag = f"{patient[-6:]}-{drug}"
                    out.append(StandaloneCase(f"R2-{tag}-trap", patient, "order_only", "refuted",
                                              _query("R2-order-only", drug, "administered", w),
                                              baseline=_query("R2-order-only-any", drug, None, w)))
                    out.append(StandaloneCase(f"R2-{tag}-ordered", patient, "ordered", "supported",
                                              _query("R2-ordered", drug, "ordered", w)))
            first = next((g for g in dose_gaps if g >= MARGIN), None)
            if first is not None:
                w = math.ceil(first) + 5
                if not any(-MARGIN <= g <= w + MARGIN for g in blocked_gaps):
                    out.append(StandaloneCase(f"R2-{patient[-6:]}-{drug}-given", patient, "given", "supported",
                                              _query("R2-given", drug, "administered", w)))
    return out
