"""One evaluation run: corpus -> protocol cases (labels set aside) -> audit -> methods ->
dev-only threshold selection (optionally frozen) -> test scoring."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from medeventgraph.core.decide.assess import load_thresholds
from medeventgraph.evaluation.audit import audit
from medeventgraph.evaluation.data import load_corpus
from medeventgraph.evaluation.evaluate import final_labels, score_all
from medeventgraph.evaluation.methods.base import METHODS
from medeventgraph.evaluation.protocol_paraphrase import paraphrase_cases, run_t11
from medeventgraph.evaluation.protocols import Caps, generate
from medeventgraph.evaluation.runner import latest_split, run_all, split_patients
from medeventgraph.evaluation.standalone import run_standalone
from medeventgraph.evaluation.tuning import freeze as freeze_thresholds
from medeventgraph.evaluation.tuning import histogram, select_b5, select_taus
from medeventgraph.model.settings import Settings

__all__ = ["SMOKE_CAPS", "evaluate"]

SMOKE_CAPS = Caps(encounter_pairs=2, patient_pairs=1, masked=1, distracted=2, chains=1, hidden=1)
SMOKE_PATIENTS = 3  # per dataset, smallest records first
_TUNED = ("T3", "T5", "T6", "T9")


def evaluate(data: Path, out: Path, *, smoke: bool, replicates: int, seed: int, methods: list[str],
             freeze: bool = False, log=print) -> dict:
    unknown = [m for m in methods if m not in METHODS]
    if unknown:
        raise SystemExit(f"unknown methods {unknown}; known: {sorted(METHODS)}")
    log(f"loading {data}")
    corpus = load_corpus(data, max_patients=SMOKE_PATIENTS if smoke else None)
    pairs = generate(list(corpus.patients.values()), SMOKE_CAPS if smoke else Caps(), seed)
    cases = [c for c, _ in pairs]
    gold = {c.id: g for c, g in pairs}  # kept apart: methods only ever get case.query + input record
    splits = split_patients(corpus, seed)
    latest = latest_split(corpus)
    log(f"{len(cases)} queries over {len(corpus.patients)} patients: {dict(Counter(c.protocol for c in cases))}")
    settings = Settings(notes=True)
    rows, indexes = run_all(cases, corpus, settings, methods, log=log)
    audit_result = audit(pairs, splits, indexes)

    current = load_thresholds()
    dev = [c for c in cases if splits[c.patient] == "dev" and c.protocol in _TUNED]
    by = {(r.case, r.method): r.out for r in rows}
    yb = {c.id: int(gold[c.id].binary == "supported") for c in dev}
    b6_rows = [(yb[c.id], by[(c.id, "B6")].s_plus, by[(c.id, "B6")].s_minus, gold[c.id].expected)
               for c in dev if (c.id, "B6") in by]
    choice = select_taus(b6_rows, (current.tau_plus, current.tau_minus)) if b6_rows else None
    b5_rows = [(yb[c.id], by[(c.id, "B5")].s_plus) for c in dev if (c.id, "B5") in by]
    b5 = select_b5(b5_rows) if b5_rows else {"threshold": 0.5, "dev_ba": float("nan")}
    frozen = False
    if freeze and choice:
        freeze_result = freeze_point(choice, b5, dev, gold)
        log(f"froze thresholds: {freeze_result['tau_plus']}, {freeze_result['tau_minus']}")
        frozen = True
    used = (load_thresholds().tau_plus, load_thresholds().tau_minus)
    labels = final_labels(rows, used, b5["threshold"])

    test_cases = [c for c in cases if splits[c.patient] == "test"]
    res = score_all(cases, gold, rows, labels, splits, latest, methods, replicates, seed)
    res["audit"] = audit_result
    res["thresholds"] = {"used": used, "dev_selected": choice, "frozen": frozen, "b5": b5,
                         "previous": (current.tau_plus, current.tau_minus),
                         # how graded the dev scores the selection ran over are (issue 12: not two clusters)
                         "dev_s_plus_values": sorted({r[1] for r in b6_rows if r[1] is not None}),
                         "dev_s_minus_values": sorted({r[2] for r in b6_rows if r[2] is not None}),
                         "dev_histogram": _dev_histograms(b6_rows)}
    res["errors"] = _errors(test_cases, gold, labels, by, corpus)
    res["standalone"] = run_standalone(data, smoke=smoke, log=log)
    res["t11"] = run_t11(paraphrase_cases(pairs), corpus, splits, log=log)
    res["meta"] = {
        "smoke": smoke, "data": str(data), "seed": seed, "replicates": replicates, "methods": methods,
        "patients": dict(Counter(p.dataset for p in corpus.patients.values())),
        "n_patients": len(corpus.patients), "n_queries": len(cases), "n_test": len(test_cases),
        "n_dev": len(cases) - len(test_cases), "split_sizes": dict(Counter(splits.values())),
        "per_protocol": {f"{p}/{s}": n for (p, s), n in sorted(Counter((c.protocol, splits[c.patient]) for c in cases).items())},
        "latest_time_patients": sorted(latest),
        "budget": ("B2, B4, B5 and the operators hand at most 20 candidates to their decision, S<k> at most k; "
                   "B3 (every name-matched graph node) and B6 (every grounded occurrence) have no budget"),
    }
    return res


def _dev_histograms(b6_rows) -> dict:
    """S+ and S- of B6 on dev, binned, per gold class: where the thresholds had room to fall."""
    out = {}
    for axis, k in (("s_plus", 1), ("s_minus", 2)):
        out[axis] = {cls: histogram([r[k] for r in b6_rows if r[k] is not None and r[0] == y])
                     for cls, y in (("supported", 1), ("not_supported", 0))}
    return out


def freeze_point(choice, b5, dev, gold):
    summary = {"n_dev_queries": len(dev), "protocols": list(_TUNED),
               "dev_positives": sum(gold[c.id].binary == "supported" for c in dev)}
    return freeze_thresholds(choice, b5, summary, len(dev))


def _errors(test_cases, gold, labels, by, corpus) -> list[dict]:
    out = []
    for c in test_cases:
        if c.protocol == "T10" or (c.id, "B6") not in labels:
            continue
        g = gold[c.id]
        v = labels[(c.id, "B6")]
        if (v == "supported") != (g.binary == "supported"):
            out.append({"case": c.id, "protocol": c.protocol, "family": g.family, "patient": c.patient,
                        "query": c.query.model_dump_json(by_alias=True, exclude_defaults=True),
                        "gold": g.expected, "verdict": v, "failure": by[(c.id, "B6")].extra.get("failure")})
    return out
