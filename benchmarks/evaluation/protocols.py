"""Model-free protocol rules (benchmarks/README.md): recorded order (T3), masked evidence
(T5), distractors (T6), compositional chains (T9) and hidden intermediates (T10).

Every label comes from the record's structured times through `gold.gold_matches` (the gold
rules' own matcher, nothing from `medeventgraph.core`); no method's
output is consulted and no protocol is filtered by a system's answer.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from datetime import timedelta

from medeventgraph.evaluation.cases import Case, Gold, Variant, case_id, render_query
from medeventgraph.evaluation.data import PatientData, clinical, precise
from medeventgraph.evaluation.gold import display_term, gold_matches, instance_of
from medeventgraph.model.occurrence import Occurrence

__all__ = ["STANDALONE", "Caps", "Concept", "generate"]

# Protocols with their own data and label rules (standalone.py), run after these: module names.
STANDALONE: tuple[str, ...] = ("protocol_admissions", "protocol_given", "protocol_mtsamples")

MIN_GAP = timedelta(minutes=2)  # strictly ordered by more than any recorded granularity
HIDDEN_KINDS = ("medication", "procedure", "lab")
STRATA = ("other_patient_events", "other_patient_same_name", "other_patient_context_terms",
          "same_patient_other_encounter")


@dataclass(frozen=True)
class Caps:
    encounter_pairs: int = 6
    patient_pairs: int = 3
    masked: int = 3
    distracted: int = 4
    chains: int = 3
    hidden: int = 3


@dataclass
class Concept:
    term: str
    kind: str
    occs: list[Occurrence]

    def in_unit(self, enc: str) -> list[Occurrence]:
        return [o for o in self.occs if o.encounter == enc]


def concepts_of(p: PatientData) -> list[Concept]:
    """Nameable concepts whose every recorded instance has a precise time."""
    structured = p.structured
    seen: dict[tuple[str, str], Concept] = {}
    for o in structured:
        if not clinical(o) or not precise(o) or o.encounter is None:
            continue
        term, kind = display_term(o), o.kind.value
        if not 3 <= len(term) <= 60 or (term, kind) in seen:
            continue
        occs = gold_matches(term, kind, structured)
        if occs and all(precise(x) for x in occs):
            seen[(term, kind)] = Concept(term, kind, occs)
    return sorted(seen.values(), key=lambda c: (c.kind, c.term))


def _ordered(a: list[Occurrence], b: list[Occurrence]) -> timedelta | None:
    """Smallest gap if every `a` starts more than MIN_GAP before every `b`, else None."""
    gap = min(x.time.start for x in b) - max(x.time.start for x in a)
    return gap if gap > MIN_GAP else None


def _shared_units(*cs: Concept) -> set[str]:
    units = [{o.encounter for o in c.occs if o.encounter} for c in cs]
    return set.intersection(*units)


def _pair_gap(a: Concept, b: Concept, scope: str) -> timedelta | None:
    """Gold order for a pair: A strictly before B in every unit where both occur."""
    if {o.id for o in a.occs} & {o.id for o in b.occs} or a.term in b.term or b.term in a.term:
        return None
    if scope == "patient":
        if {o.encounter for o in a.occs} & {o.encounter for o in b.occs}:
            return None  # patient scope is for pairs that cross encounters
        return _ordered(a.occs, b.occs)
    units = _shared_units(a, b)
    gaps = [_ordered(a.in_unit(u), b.in_unit(u)) for u in sorted(units)]
    return min(gaps) if units and all(gaps) else None  # type: ignore[type-var]


def _iso_minutes(minutes: int) -> str:
    return f"PT{minutes}M" if minutes < 60 or minutes % 60 else f"PT{minutes // 60}H"


def _event(c: Concept) -> dict:
    return {"text": c.term, "kind": c.kind}


def _pick(pool: list, n: int, rng: random.Random, key=lambda x: x) -> list:
    """Deterministic sample favouring variety: each concept used at most twice."""
    rng.shuffle(pool)
    used: dict[str, int] = {}
    out = []
    for item in pool:
        names = key(item)
        if any(used.get(t, 0) >= 2 for t in names):
            continue
        for t in names:
            used[t] = used.get(t, 0) + 1
        out.append(item)
        if len(out) == n:
            break
    return out


def pairwise(p: PatientData, concepts: list[Concept], caps: Caps, rng: random.Random):
    """T3: (positive, negative) case pairs at encounter and patient scope."""
    out: list[tuple[Case, Gold]] = []
    for scope, cap in (("encounter", caps.encounter_pairs), ("patient", caps.patient_pairs)):
        pool = [(a, b, g) for a in concepts for b in concepts if a is not b and (g := _pair_gap(a, b, scope))]
        for a, b, gap in _pick(pool, cap, rng, key=lambda t: (t[0].term, t[1].term)):
            ctx = tuple(sorted(o.id for o in a.occs + b.occs))
            pair = case_id("pair", p.patient, scope, a.term, b.term)
            minutes = int(gap.total_seconds() // 60)
            family = "window" if scope == "encounter" and minutes >= 4 and rng.random() < 0.5 else "plain"
            for positive in (True, False):
                if family == "window":
                    w = math.ceil(minutes * 1.5) if positive else max(1, minutes // 2)
                    links, expected = [(0, 1, _iso_minutes(w), True)], "supported" if positive else "refuted"
                else:
                    links, expected = [(0, 1, None, positive)], "supported" if positive else "refuted"
                cid = case_id("T3", pair, positive)
                q = render_query(cid, [_event(a), _event(b)], links, scope, rng)
                gold = Gold("supported" if positive else "not_supported", expected, scope, family, pair, ctx)
                out.append((Case(cid, "T3", p.dataset, f"{p.dataset}:{p.patient}", q), gold))
    return out


def masked(p: PatientData, t3: list[tuple[Case, Gold]], caps: Caps, rng: random.Random):
    """T5: a supported query as recorded, and the same query with one endpoint's establishing
    resources (and the notes naming it) or its timing removed; the answer becomes insufficient."""
    positives = [(c, g) for c, g in t3 if g.binary == "supported"]
    rng.shuffle(positives)
    out = []
    for case, gold in positives[: caps.masked]:
        named = [e for e in case.query.events if not e.hidden]
        target = rng.choice(named)
        how = rng.choice(("mask_event", "mask_time"))
        variant = Variant(how, (("text", target.text), ("kind", target.kind)))
        for v, binary, expected in ((None, "supported", "supported"), (variant, "not_supported", "insufficient")):
            cid = case_id("T5", case.id, v.key if v else "as-recorded")
            q = case.query.model_copy(update={"id": cid})
            out.append((Case(cid, "T5", case.dataset, case.patient, q, v),
                        Gold(binary, expected, gold.scope, how if v else "as_recorded", gold.pair, gold.contexts)))
    return out


def distracted(p: PatientData, t3: list[tuple[Case, Gold]], others: list[str], caps: Caps, rng: random.Random):
    """T6: T3 cases (both classes) with one distractor stratum added; labels unchanged.
    The same-patient stratum needs encounter scope (at patient scope it would change the label)."""
    pool = list(t3)
    rng.shuffle(pool)
    out = []
    for k, (case, gold) in enumerate(pool[: caps.distracted]):
        stratum = STRATA[k % len(STRATA)]
        if stratum == STRATA[3] and gold.scope != "encounter":
            stratum = STRATA[2]
        params = (("stratum", stratum), ("other", rng.choice(others)), ("seed", rng.randrange(1 << 30)))
        cid = case_id("T6", case.id, stratum)
        q = case.query.model_copy(update={"id": cid})
        g = Gold(gold.binary, gold.expected, gold.scope, stratum, gold.pair, gold.contexts)
        out.append((Case(cid, "T6", case.dataset, case.patient, q, Variant("distractor", params)), g))
    return out


def chains(p: PatientData, concepts: list[Concept], caps: Caps, rng: random.Random):
    """T9: A<B<C in one encounter, every pair strictly ordered wherever both occur; the
    negative perturbs one link (one refuted transition refutes the query)."""
    ordered = [c for c in concepts if len(c.occs) <= 6]
    pool = []
    for a in ordered:
        for b in ordered:
            if not _pair_gap(a, b, "encounter"):
                continue
            for c in ordered:
                if _pair_gap(b, c, "encounter") and _pair_gap(a, c, "encounter") and _shared_units(a, b, c):
                    pool.append((a, b, c))
    out = []
    for a, b, c in _pick(pool, caps.chains, rng, key=lambda t: tuple(x.term for x in t)):
        pair = case_id("chain", p.patient, a.term, b.term, c.term)
        bad = rng.randrange(2)
        ctx = tuple(sorted(o.id for x in (a, b, c) for o in x.occs))
        for positive in (True, False):
            links = [(0, 1, None, positive or bad != 0), (1, 2, None, positive or bad != 1)]
            cid = case_id("T9", pair, positive)
            q = render_query(cid, [_event(a), _event(b), _event(c)], links, "encounter", rng)
            gold = Gold("supported" if positive else "not_supported", "supported" if positive else "refuted",
                        "encounter", "chain", pair, ctx)
            out.append((Case(cid, "T9", p.dataset, f"{p.dataset}:{p.patient}", q), gold))
    return out


def hidden(p: PatientData, concepts: list[Concept], caps: Caps, rng: random.Random):
    """T10: A before [hidden kind K] before C in one encounter; positives only, scored as a
    funnel (context, bridge, complete chain at 20, verified, provenance-valid)."""
    structured = [o for o in p.structured if precise(o) and o.encounter]
    pool = []
    for a in concepts:
        for c in concepts:
            if not _pair_gap(a, c, "encounter"):
                continue
            named = {o.id for o in a.occs + c.occs}
            for u in sorted(_shared_units(a, c)):
                lo, hi = max(o.time.start for o in a.in_unit(u)), min(o.time.start for o in c.in_unit(u))
                for kind in HIDDEN_KINDS:
                    bridges = [o.id for o in gold_matches_kind(kind, structured, u)
                               if o.id not in named and lo + MIN_GAP < o.time.start < hi - MIN_GAP]
                    if bridges:
                        pool.append((a, c, kind, u, tuple(sorted(bridges))))
    out = []
    for a, c, kind, u, bridges in _pick(pool, caps.hidden, rng, key=lambda t: (t[0].term, t[1].term)):
        cid = case_id("T10", p.patient, a.term, c.term, kind, u)
        events = [_event(a), {"kind": kind, "hidden": True}, _event(c)]
        q = render_query(cid, events, [(0, 1, None, True), (1, 2, None, True)], "encounter", rng)
        ends = (tuple(o.id for o in a.in_unit(u)), tuple(o.id for o in c.in_unit(u)))
        gold = Gold("supported", "supported", "encounter", "hidden", cid,
                    tuple(sorted(ends[0] + ends[1] + bridges)), bridges, ends, {"hidden_kind": kind})
        out.append((Case(cid, "T10", p.dataset, f"{p.dataset}:{p.patient}", q), gold))
    return out


def gold_matches_kind(kind: str, occurrences: list[Occurrence], unit: str) -> list[Occurrence]:
    return [o for o in occurrences if o.encounter == unit and instance_of(kind, o)]


def generate(patients: list[PatientData], caps: Caps, seed: int) -> list[tuple[Case, Gold]]:
    """All protocol cases for the given patients, deterministic in `seed`."""
    out: list[tuple[Case, Gold]] = []
    keys = [f"{p.dataset}:{p.patient}" for p in patients]
    for p in patients:
        rng = random.Random(f"{seed}:{p.dataset}:{p.patient}")
        concepts = concepts_of(p)
        t3 = pairwise(p, concepts, caps, rng)
        others = [k for k in keys if k.startswith(p.dataset + ":") and not k.endswith(p.patient)]
        out += t3 + masked(p, t3, caps, rng) + chains(p, concepts, caps, rng) + hidden(p, concepts, caps, rng)
        if others:
            out += distracted(p, t3, others, caps, rng)
    return out
