"""Run every method on every case: splits, one index per (patient, input variant), outputs.

Methods receive (index, query, settings) only. Gold stays in the caller's mapping.
"""

from __future__ import annotations

import hashlib
import time
from collections import defaultdict
from dataclasses import dataclass

from medeventgraph.api import make_note_pipeline
from medeventgraph.core.index.patient_index import PatientIndex, build_index
from medeventgraph.evaluation.cases import Case
from medeventgraph.evaluation.data import Corpus
from medeventgraph.evaluation.methods import baselines, operators, pipeline  # noqa: F401  (registers)
from medeventgraph.evaluation.methods.base import METHODS, Method, Output
from medeventgraph.evaluation.variants import input_record
from medeventgraph.model.settings import Settings

__all__ = ["Row", "latest_split", "run_all", "split_patients"]


@dataclass
class Row:
    case: str
    method: str
    out: Output
    seconds: float


def split_patients(corpus: Corpus, seed: int, dev_share: float = 0.4) -> dict[str, str]:
    """Patient-disjoint dev/test, per dataset, by a seeded hash of the patient key."""
    out = {}
    for ds in sorted({p.dataset for p in corpus.patients.values()}):
        keys = sorted((k for k, p in corpus.patients.items() if p.dataset == ds),
                      key=lambda k: hashlib.sha1(f"{seed}:{k}".encode()).hexdigest())
        n_dev = max(1, round(dev_share * len(keys))) if len(keys) > 1 else 0
        out.update({k: "dev" if i < n_dev else "test" for i, k in enumerate(keys)})
    return out


def latest_split(corpus: Corpus, share: float = 0.34) -> set[str]:
    """T8: per dataset, the patients whose records end latest (the 'future' patients)."""
    out = set()
    for ds in sorted({p.dataset for p in corpus.patients.values()}):
        pats = sorted((p for p in corpus.patients.values() if p.dataset == ds and p.latest), key=lambda p: p.latest)
        n = max(1, round(share * len(pats)))
        out |= {f"{p.dataset}:{p.patient}" for p in pats[-n:]}
    return out


def run_all(cases: list[Case], corpus: Corpus, settings: Settings, methods: list[str], *, log=print):
    """Returns rows and the base indexes (for the audit)."""
    notes = make_note_pipeline(settings)
    groups: dict[tuple[str, str], list[Case]] = defaultdict(list)
    for c in cases:
        groups[(c.patient, c.variant.key if c.variant else "")].append(c)
    instances: dict[str, Method] = {m: METHODS[m]() for m in methods}
    base: dict[str, PatientIndex] = {}
    rows: list[Row] = []
    t0 = time.time()
    for n, ((patient, vkey), group) in enumerate(sorted(groups.items())):
        if patient not in base:
            base[patient] = build_index(corpus.patients[patient].record, settings, notes=notes)
        index = base[patient] if vkey == "" else build_index(input_record(group[0], corpus), settings, notes=notes)
        for c in group:
            for name, method in instances.items():
                t = time.perf_counter()
                out = method.run(index, c.query, settings)
                rows.append(Row(c.id, name, out, time.perf_counter() - t))
        if n % 50 == 0:
            log(f"  {n + 1}/{len(groups)} inputs, {len(rows)} runs, {time.time() - t0:.0f}s")
    return rows, base
