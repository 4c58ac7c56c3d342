"""Release audit (paper, Task Construction), run before any method: no graph edge encodes a
queried relation, gold direction appears only in labels, positives and negatives share one
schema, and no patient is in two splits. Returns checks and the per-class statistics."""

from __future__ import annotations

from collections import defaultdict
from statistics import mean

from medeventgraph.core.index.patient_index import PatientIndex
from medeventgraph.evaluation.cases import Case, Gold

__all__ = ["ALLOWED_EDGES", "FORBIDDEN_FIELDS", "audit", "key_paths"]

# DESIGN.md's recorded-relation edge kinds plus the FHIR reference names the adapters emit.
ALLOWED_EDGES = frozenset({
    "in_encounter", "next_encounter", "part_of", "same_concept", "trajectory", "mention_of", "derived_from",
    "temporal", "request", "reasonReference", "hasMember", "result", "derivedFrom", "basedOn", "partOf",
    "context", "encounter", "subject", "focus", "specimen", "medication", "reason", "supportingInfo",
})
FORBIDDEN_FIELDS = frozenset({"label", "gold", "expected", "binary", "answer", "verdict", "positive", "negative"})
_RELATION_WORDS = ("before", "after", "overlap", "support", "refute", "conflict", "cause", "precede", "follow")


def key_paths(obj, prefix: str = "") -> set[str]:
    """Every JSON key path in a value (list items share the path)."""
    out: set[str] = set()
    if isinstance(obj, dict):
        for k, v in obj.items():
            out.add(prefix + k)
            out |= key_paths(v, prefix + k + ".")
    elif isinstance(obj, list):
        for v in obj:
            out |= key_paths(v, prefix)
    return out


def _edge_check(indexes: dict[str, PatientIndex]) -> dict:
    kinds: set[str] = set()
    for ix in indexes.values():
        kinds |= {d["kind"] for _, _, d in ix.graph.g.edges(data=True)}
    suspicious = sorted(k for k in kinds if k not in ALLOWED_EDGES and any(w in k.lower() for w in _RELATION_WORDS))
    return {"pass": not suspicious, "edge_kinds": sorted(kinds), "relation_like": suspicious,
            "unknown_kinds": sorted(kinds - ALLOWED_EDGES)}


def _class_stats(cases: list[tuple[Case, Gold]]) -> dict:
    stats = {}
    for cls in ("supported", "not_supported"):
        rows = [(c, g) for c, g in cases if g.binary == cls]
        if not rows:
            continue
        qs = [c.query.dump() for c, _ in rows]
        rels = [r for q in qs for r in q["relations"]]
        stats[cls] = {
            "n": len(rows),
            "events": round(mean(len(q["events"]) for q in qs), 3),
            "relations": round(mean(len(q["relations"]) for q in qs), 3),
            "before_share": round(mean(r["type"] == "before" for r in rels), 3),
            "within_share": round(mean(r.get("within") is not None for r in rels), 3),
            "encounter_scope_share": round(mean(q["scope"] == "encounter" for q in qs), 3),
            "contexts_per_endpoint": round(mean(
                len(g.contexts) / max(1, sum(not e.hidden for e in c.query.events)) for c, g in rows), 3),
            "key_paths": sorted(set.union(*(key_paths(q) for q in qs))),
        }
    return stats


def audit(cases: list[tuple[Case, Gold]], splits: dict[str, str], indexes: dict[str, PatientIndex]) -> dict:
    checks: dict[str, dict] = {}
    checks["no_relation_edges"] = _edge_check(indexes)
    leaks = []
    for c, _ in cases:
        paths = key_paths(c.query.dump()) | set(vars(c))
        bad = sorted(p for p in paths if p.rsplit(".", 1)[-1] in FORBIDDEN_FIELDS)
        if c.variant is not None:
            bad += [k for k, _ in c.variant.params if k in FORBIDDEN_FIELDS]
        if bad:
            leaks.append((c.id, bad))
    checks["gold_only_in_labels"] = {"pass": not leaks, "leaks": leaks[:10],
                                     "note": "query JSON, case fields and variant params hold no label field; "
                                             "ids are hashes; event order and before/after wording are randomised"}
    by_protocol: dict[str, list] = defaultdict(list)
    for c, g in cases:
        by_protocol[c.protocol].append((c, g))
    schema = {}
    ok = True
    for proto, rows in sorted(by_protocol.items()):
        st = _class_stats(rows)
        same = len(st) < 2 or st["supported"]["key_paths"] == st["not_supported"]["key_paths"]
        if len(st) == 2:
            same = same and st["supported"]["events"] == st["not_supported"]["events"]
            same = same and st["supported"]["relations"] == st["not_supported"]["relations"]
        ok = ok and same
        schema[proto] = {"pass": same, **{k: {kk: vv for kk, vv in v.items() if kk != "key_paths"} for k, v in st.items()}}
    checks["shared_schema"] = {"pass": ok, "per_protocol": schema}
    patient_split: dict[str, set[str]] = defaultdict(set)
    for c, _ in cases:
        patient_split[c.patient].add(splits[c.patient])
    overlap = sorted(p for p, s in patient_split.items() if len(s) > 1)
    checks["patient_disjoint_splits"] = {"pass": not overlap and len(set(splits.values())) >= 2, "overlap": overlap,
                                         "sizes": {s: sum(v == s for v in splits.values()) for s in sorted(set(splits.values()))}}
    checks["all_pass"] = {"pass": all(v["pass"] for v in checks.values())}
    return checks
