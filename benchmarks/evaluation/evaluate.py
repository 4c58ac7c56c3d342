"""Turn runs + gold into the report's numbers: per-protocol BA/F1 with patient-cluster
intervals, FSR beside supported recall, paired tests (Holm), T4 context P/R, T6 strata,
T8 latest-time split, T10 funnel, and the budgeted search against B6
(fidelity per budget, ablations, budgets that drop the compatible pair). Only this module and
report read gold."""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from statistics import mean

from medeventgraph.evaluation import metrics as M
from medeventgraph.evaluation.cases import Case, Gold
from medeventgraph.evaluation.methods.base import METHODS
from medeventgraph.evaluation.runner import Row
from medeventgraph.evaluation.tuning import label_of

__all__ = ["LABELLED", "final_labels", "score_all"]

LABELLED = ("T3", "T5", "T6", "T9", "T8")
REFERENCE = "B6"


def final_labels(rows: list[Row], taus: tuple[float, float], b5: float) -> dict[tuple[str, str], str]:
    """Assessor methods re-labelled at the frozen (dev-selected) point; B5 at its dev threshold."""
    out = {}
    for r in rows:
        o = r.out
        if METHODS[r.method].uses_assessor and o.s_plus is not None:
            out[(r.case, r.method)] = label_of(o.s_plus, o.s_minus or 0.0, *taus)
        elif r.method == "B5" and o.s_plus is not None:
            out[(r.case, r.method)] = "supported" if o.s_plus >= b5 else "insufficient"
        else:
            out[(r.case, r.method)] = o.label
    return out


def _protocol_cases(cases, splits, latest, proto):
    if proto == "T8":
        return [c for c in cases if c.protocol in ("T3", "T5", "T6", "T9") and splits[c.patient] == "test"
                and c.patient in latest]
    return [c for c in cases if c.protocol == proto and splits[c.patient] == "test"]


def score_all(cases: list[Case], gold: dict[str, Gold], rows: list[Row], labels, splits, latest,
              methods: list[str], replicates: int, seed: int) -> dict:
    out: dict = {"protocols": {}}
    family: dict[str, float] = {}
    for proto in LABELLED:
        pcs = _protocol_cases(cases, splits, latest, proto)
        if not pcs:
            continue
        y = M.binary([gold[c.id].binary for c in pcs])
        clusters = [c.patient for c in pcs]
        res = {"n": len(pcs), "patients": len(set(clusters)), "positives": int(y.sum()), "methods": {}}
        preds = {}
        for m in methods:
            p = M.binary([labels[(c.id, m)] for c in pcs])
            preds[m] = p
            s = M.scores(y, p)
            for metric in ("ba", "f1", "fsr", "sup_recall"):
                s[metric + "_ci"] = M.bootstrap_ci(y, p, clusters, metric, replicates, seed)
            res["methods"][m] = s
        others = [m for m in methods if m != REFERENCE and not METHODS[m].ablation]
        if REFERENCE in preds:
            for m in others:
                for metric in ("ba", "f1"):
                    family[f"{proto}|{m}|{metric}"] = M.paired_randomization(
                        y, preds[REFERENCE], preds[m], clusters, metric, replicates, seed)
            best = max(others, key=lambda m: res["methods"][m]["ba"]) if others else None
            res["best_baseline"] = best
            if best:
                res["delta_ba"] = res["methods"][REFERENCE]["ba"] - res["methods"][best]["ba"]
        out["protocols"][proto] = res
    adjusted = M.holm(family)
    for key, p in adjusted.items():
        proto, m, metric = key.split("|")
        out["protocols"][proto]["methods"][m][f"p_holm_{metric}_vs_B6"] = p
    out["holm_family_size"] = len([p for p in family.values() if not math.isnan(p)])
    out["ablations"] = _ablations(cases, gold, labels, splits, latest, methods, rows)
    out["dropped_pair"] = _dropped_pair(cases, splits, latest, methods, rows, labels)
    out["t6_strata"] = _strata(cases, gold, labels, splits, methods)
    out["t4"] = _context(cases, gold, rows, splits)
    out["t10"] = _funnel(cases, gold, rows, labels, splits)
    out["timing_ms"] = {m: round(1000 * mean(r.seconds for r in rows if r.method == m), 2) for m in methods}
    out["bundle_size"] = {m: round(mean(r.out.extra.get("bundle", len(r.out.retrieved)) for r in rows
                                        if r.method == m), 1) for m in methods}
    return out


ABLATED_ON = ("T3", "T5", "T6", "T9", "T10")


def _ablations(cases, gold, labels, splits, latest, methods, rows):
    """B6 beside each budgeted-search row (fidelity budgets, ablations) on the protocols
    where search should matter: BA, FSR, how many test verdicts equal B6's (four-way labels),
    and what each costs: mean bundle size and ms per query."""
    names = [m for m in methods if METHODS[m].ablation]
    if REFERENCE not in methods or not names:
        return {}
    cost: dict[tuple[str, str], tuple[float, int]] = {(r.case, r.method): (r.seconds, r.out.extra.get("bundle", 0))
                                                      for r in rows}
    res: dict = {}
    for proto in ABLATED_ON:
        pcs = _protocol_cases(cases, splits, latest, proto)
        if not pcs:
            continue
        y = M.binary([gold[c.id].binary for c in pcs])
        per = {}
        for m in [REFERENCE, *names]:
            s = M.scores(y, M.binary([labels[(c.id, m)] for c in pcs]))
            per[m] = {"ba": s["ba"], "fsr": s["fsr"], "sup_recall": s["sup_recall"],
                      "same_as_B6": sum(labels[(c.id, m)] == labels[(c.id, REFERENCE)] for c in pcs),
                      "same_as_S20": (sum(labels[(c.id, m)] == labels[(c.id, "S20")] for c in pcs)
                                      if "S20" in methods else None),
                      "bundle": round(mean(cost[(c.id, m)][1] for c in pcs), 1),
                      "ms": round(1000 * mean(cost[(c.id, m)][0] for c in pcs), 2)}
        res[proto] = {"n": len(pcs), "methods": per}
    return res


def _dropped_pair(cases, splits, latest, methods, rows, labels):
    """Per search row and protocol: test queries B6 supports whose search bundle holds less than
    the record's grounding and does not support: the budget left the compatible pair out. What
    the search said, and what the same bundle would say if it were read as complete (the
    refutations the completeness rule prevents)."""
    names = [m for m in methods if METHODS[m].ablation]
    by = {(r.case, r.method): r.out for r in rows}
    res: dict = {}
    for proto in ABLATED_ON:
        pcs = [c for c in _protocol_cases(cases, splits, latest, proto) if labels.get((c.id, REFERENCE)) == "supported"]
        per = {}
        for m in names:
            hit = [c for c in pcs if (c.id, m) in by and not by[(c.id, m)].extra.get("complete", True)
                   and labels[(c.id, m)] != "supported"]
            per[m] = {"n": len(hit),
                      "verdicts": dict(sorted(Counter(labels[(c.id, m)] for c in hit).items())),
                      "as_complete": dict(sorted(Counter(by[(c.id, m)].extra.get("as_complete") for c in hit).items()))}
        res[proto] = {"b6_supported": len(pcs), "methods": per}
    return res


def _strata(cases, gold, labels, splits, methods):
    res: dict = defaultdict(dict)
    t6 = [c for c in cases if c.protocol == "T6" and splits[c.patient] == "test"]
    for stratum in sorted({gold[c.id].family for c in t6}):
        pcs = [c for c in t6 if gold[c.id].family == stratum]
        y = M.binary([gold[c.id].binary for c in pcs])
        for m in methods:
            res[stratum][m] = {**M.scores(y, M.binary([labels[(c.id, m)] for c in pcs])), "n": len(pcs)}
    return dict(res)


def _context(cases, gold, rows, splits):
    """T4: retrieval only, on test T3 queries; gold contexts = the endpoints' structured rows."""
    ids = {c.id for c in cases if c.protocol == "T3" and splits[c.patient] == "test"}
    acc: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for r in rows:
        if r.case not in ids or not r.out.retrieved and r.method == "B1":
            continue
        g = set(gold[r.case].contexts)
        got = set(r.out.retrieved)
        recall = len(g & got) / len(g) if g else float("nan")
        precision = len(g & got) / len(got) if got else 0.0
        acc[r.method].append((recall, precision))
    return {m: {"ctx_recall": mean(x[0] for x in v), "ctx_precision": mean(x[1] for x in v), "n": len(v)}
            for m, v in acc.items()}


def _funnel(cases, gold, rows, labels, splits):
    """T10 funnel; n/a (None) where a method does not emit that stage."""
    ids = {c.id for c in cases if c.protocol == "T10" and splits[c.patient] == "test"}
    acc: dict[str, dict[str, list]] = defaultdict(lambda: defaultdict(list))
    for r in rows:
        if r.case not in ids or r.method == "B1":
            continue
        g, o = gold[r.case], r.out
        got = list(o.retrieved)
        acc[r.method]["ctx_r"].append(len(set(g.contexts) & set(got)) / len(g.contexts))
        if o.bridges is not None:
            acc[r.method]["bridge"].append(bool(set(o.bridges) & set(g.bridges)))
            top = set(got[:20])
            acc[r.method]["c20"].append(all(top & set(e) for e in g.endpoints) and bool(top & set(g.bridges)))
        if o.chain is not None:
            verified = labels[(r.case, r.method)] == "supported" and bool(o.chain)
            acc[r.method]["verif"].append(verified)
            chain = set(o.chain)
            prov = verified and bool(chain & set(g.bridges)) and all(chain & set(e) for e in g.endpoints)
            acc[r.method]["prov"].append(prov)
    keys = ("ctx_r", "bridge", "c20", "verif", "prov")
    return {m: {k: (mean(v[k]) if v.get(k) else None) for k in keys} | {"n": len(v["ctx_r"])}
            for m, v in acc.items()}
