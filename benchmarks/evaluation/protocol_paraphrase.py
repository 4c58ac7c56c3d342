"""T11 paraphrased names: the question names an event differently from the record.

Rule (benchmarks/README.md): the first T3 pair per patient at encounter scope whose endpoint term has 2-4
words, letters only and no function word is rewritten in the inverted form records and
coding lists use ("acute bronchitis" -> "bronchitis, acute"); cases with no such endpoint
are left out. Labels are the T3 labels (the events are the same; only their names change).
Exact grounding cannot bind the inverted name (unless the lexicon lists it), so this is the
protocol where retrieval decides: the dense channel with a similarity basis (core.similarity)
can bind it, when replanning engages the channel. Runs on the structured record.

Methods:
  B6                 the default path: exhaustive grounding, no dense extra
  S20-dense          the search alone (20 candidates), dense channel available to replanning,
                     the hand-written replanning table
  S20-dense-generic  as S20-dense, no failure-specific edits (every failure: widen, more hits)
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from medeventgraph.core.answer import verify_query
from medeventgraph.core.discover.search import controller_discovery
from medeventgraph.core.index.patient_index import PatientIndex, build_index
from medeventgraph.core.query.lexicon import normalize_text
from medeventgraph.core.query.verdict import FailureType
from medeventgraph.evaluation import metrics as M
from medeventgraph.evaluation.cases import Case, Gold, case_id
from medeventgraph.evaluation.methods.base import BUDGET
from medeventgraph.model.settings import Settings

__all__ = ["GENERIC", "METHODS", "REFERENCE", "invert", "paraphrase_cases", "run_case", "run_t11", "settings_for", "threshold_check"]

_FUNCTION_WORDS = frozenset({"in", "of", "for", "with", "by", "to", "on", "and", "or", "due", "from", "at", "the",
                             "a", "an", "without", "per"})
_WORD = re.compile(r"^[a-z]+$")
GENERIC: dict[FailureType, dict[str, object]] = {f: {"widen": 2.0, "more_hits": 2} for f in FailureType}
METHODS = ("B6", "S20-dense", "S20-dense-generic")
REFERENCE = "S20-dense"  # the search with every part on: what each other row is compared with


def invert(term: str) -> str | None:
    """"acute viral pharyngitis" -> "pharyngitis, acute viral"; None when the rule does not apply."""
    words = term.split()
    if not 2 <= len(words) <= 4 or any(not _WORD.match(w) or w in _FUNCTION_WORDS for w in words):
        return None
    return f"{words[-1]}, {' '.join(words[:-1])}"


def paraphrase_cases(t3: list[tuple[Case, Gold]], per_patient: int = 1) -> list[tuple[Case, Gold]]:
    """The first `per_patient` eligible T3 pairs (positive and negative) of each patient."""
    out = []
    pairs: dict[str, set[str]] = {}
    for case, gold in t3:
        if case.protocol != "T3" or gold.scope != "encounter":
            continue
        seen = pairs.setdefault(case.patient, set())
        if gold.pair not in seen and len(seen) >= per_patient:
            continue
        events, changed = [], False
        for e in case.query.events:
            new = invert(normalize_text(e.text or ""))
            changed |= new is not None
            events.append(e.model_copy(update={"text": new}) if new else e)
        if not changed:
            continue
        seen.add(gold.pair)
        cid = case_id("T11", case.id)
        q = case.query.model_copy(update={"id": cid, "events": events})
        g = Gold(gold.binary, gold.expected, gold.scope, "paraphrase", gold.pair, gold.contexts)
        out.append((Case(cid, "T11", case.dataset, case.patient, q), g))
    return out


def settings_for(method: str) -> Settings:
    """The dense channel is available but not searched first: replanning decides (see the module doc)."""
    if method == "B6":
        return Settings(notes=False)
    return Settings(notes=False, dense=True, channel_order=["lexical", "metadata"], final_contexts=BUDGET,
                    discovery="search")


def table_for(method: str) -> Mapping[FailureType, Mapping[str, object]] | None:
    """The replanning table: the hand-written one (None) or none failure-specific (GENERIC)."""
    return GENERIC if method == "S20-dense-generic" else None


def run_case(index: PatientIndex, case: Case, settings: Settings, table) -> tuple[str, str | None]:
    """(four-way verdict, the first structured failure the search reported)."""
    if settings.discovery == "exhaustive":
        return verify_query(index, case.query, settings).verdict.value, None

    def discover(i, q, s):
        return controller_discovery(i, q, s, table=table)

    v = verify_query(index, case.query, settings, discover=discover)
    failures = [d["failure"] for d in v.search.get("depths", []) if d.get("failure")]
    return v.verdict.value, failures[0] if failures else None


def run_t11(cases: list[tuple[Case, Gold]], corpus, splits: Mapping[str, str], *, log=print) -> dict:
    """Every method on the test split's T11 cases; on dev only the similarity threshold check."""
    test = [(c, g) for c, g in cases if splits[c.patient] == "test"]
    indexes: dict[tuple[str, bool], PatientIndex] = {}
    verdicts: dict[str, dict[str, str]] = {m: {} for m in METHODS}
    for method in METHODS:
        s = settings_for(method)
        table = table_for(method)
        for case, _ in test:
            key = (case.patient, s.dense)
            if key not in indexes:
                indexes[key] = build_index(corpus.patients[case.patient].record, s)
            verdicts[method][case.id] = run_case(indexes[key], case, s, table)[0]
    log(f"  T11: {len(test)} paraphrased test queries, {len(METHODS)} methods")
    y = M.binary([g.binary for _, g in test])
    per = {}
    for m in METHODS:
        p = M.binary(["supported" if verdicts[m][c.id] == "supported" else "not_supported" for c, _ in test])
        per[m] = {**(M.scores(y, p) if test else {}),
                  "same_as_reference": sum(verdicts[m][c.id] == verdicts[REFERENCE][c.id] for c, _ in test)}
    from medeventgraph.core.index.retrieval.dense_backend import dense_available

    return {"methods": per, "n": len(test), "positives": int(y.sum()) if test else 0,
            "patients": len({c.patient for c, _ in test}), "dense_installed": dense_available(),
            "threshold_dev": threshold_check([(c, g) for c, g in cases if splits[c.patient] == "dev"], corpus)}


def threshold_check(cases: list[tuple[Case, Gold]], corpus) -> dict:
    """On the given (dev) cases: per renamed event, the best similarity to a record row that is
    no endpoint instance (a wrong binding) and to one that is (a right one), against the frozen
    threshold; what the threshold in core/resources/similarity.json is checked against."""
    from medeventgraph.core.evidence.binding import kind_allows
    from medeventgraph.core.evidence.similarity import best_similarity, load_rule, prime

    rule = load_rule()
    wrong, right = [], []
    for case, gold in cases:
        rows = [o for o in corpus.patients[case.patient].structured]
        for e in case.query.events:
            if "," not in (e.text or ""):
                continue
            text = normalize_text(e.text)
            cands = [(o.id, tuple(normalize_text(d) for d in o.concept.displays())) for o in rows
                     if kind_allows(e.kind, o.kind)]
            prime(rule.model, [text] + [d for _, ds in cands for d in ds])
            scores = [(oid in gold.contexts, best_similarity(rule.model, text, ds)) for oid, ds in cands]
            wrong.append(max((s for ok, s in scores if not ok and s is not None), default=0.0))
            right.append(max((s for ok, s in scores if ok and s is not None), default=0.0))
    if not wrong:
        return {"events": 0}
    return {"events": len(wrong), "threshold": rule.threshold, "model": rule.model,
            "max_wrong": round(max(wrong), 4), "wrong_at_or_above": sum(s >= rule.threshold for s in wrong),
            "right_at_or_above": sum(s >= rule.threshold for s in right), "min_right": round(min(right), 4)}
