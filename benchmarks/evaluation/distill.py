"""`python -m medeventgraph.evaluation distill-memory`: procedural memory learned from failures.

On the DEV split only, of the protocols where retrieval can matter (T5, T6, T9, T10), the
controller runs with the search alone deciding what the bundle gets (no record-wide deciding
pass, the shared 20-candidate budget). For every structured failure type the search reported on
a query it got wrong, each candidate retrieval edit is tried as memory for that failure type;
an edit is kept when it fixes more dev queries than it breaks. The result is written as data
(`core/resources/memory.json` by default) with counts and provenance, and loaded back through
`core.memory.load_memory`, which refuses anything patient-specific. Never part of `make eval`.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter, defaultdict
from pathlib import Path

import orjson
from medeventgraph.core.discovery import controller_discovery
from medeventgraph.core.index import build_index
from medeventgraph.core.memory import load_memory
from medeventgraph.core.verdict import FailureType
from medeventgraph.core.verify import verify_query
from medeventgraph.evaluation.data import load_corpus
from medeventgraph.evaluation.methods.base import BUDGET
from medeventgraph.evaluation.protocols import Caps, generate
from medeventgraph.evaluation.runner import split_patients
from medeventgraph.evaluation.variants import input_record
from medeventgraph.settings import Settings

__all__ = ["CANDIDATE_EDITS", "PROTOCOLS", "distill"]

PROTOCOLS = ("T5", "T6", "T9", "T10")
CANDIDATE_EDITS: tuple[dict[str, object], ...] = (
    {"note_mentions": True},
    {"add_channel": "dense"},
    {"widen": 4.0},
    {"more_hits": 2},
    {"follow_episode": True},
    {"widen": 2.0, "more_hits": 2},
)


def _run(index, query, settings, memory):
    def discover(i, q, s):
        return controller_discovery(i, q, s, memory=memory, ablate=frozenset({"exhaustive"}), budget=BUDGET)

    v = verify_query(index, query, settings, discover=discover)
    failures = [d["failure"] for d in v.search.get("depths", []) if d.get("failure")]
    return v.verdict.value == "supported", failures[0] if failures else None


def distill(data: Path, out: Path, *, smoke: bool = False, seed: int = 7, log=print) -> dict:
    corpus = load_corpus(data, max_patients=3 if smoke else None)
    caps = Caps(encounter_pairs=2, patient_pairs=1, masked=1, distracted=2, chains=1, hidden=1) if smoke else Caps()
    pairs = generate(list(corpus.patients.values()), caps, seed)
    splits = split_patients(corpus, seed)
    dev = [(c, g) for c, g in pairs if splits[c.patient] == "dev" and c.protocol in PROTOCOLS]
    settings = Settings(notes=False, final_contexts=BUDGET)
    indexes: dict[tuple[str, str], object] = {}

    def index_for(case):
        key = (case.patient, case.variant.key if case.variant else "")
        if key not in indexes:
            indexes[key] = build_index(input_record(case, corpus), settings)
        return indexes[key]

    base = {}
    for c, g in dev:
        said, failure = _run(index_for(c), c.query, settings, None)
        base[c.id] = (said == (g.binary == "supported"), failure)
    by_failure: dict[str, list] = defaultdict(list)
    for c, g in dev:
        if base[c.id][1]:
            by_failure[base[c.id][1]].append((c, g))
    wrong = Counter(base[c.id][1] for c, _ in dev if not base[c.id][0] and base[c.id][1])
    policies = []
    for failure in sorted(wrong):
        best = None
        for edits in CANDIDATE_EDITS:
            memory = {FailureType(failure): edits}
            fixed = broke = 0
            for c, g in by_failure[failure]:
                said, _ = _run(index_for(c), c.query, settings, memory)
                right = said == (g.binary == "supported")
                fixed += right and not base[c.id][0]
                broke += base[c.id][0] and not right
            if fixed > broke and (best is None or (fixed - broke, -broke) > (best[1] - best[2], -best[2])):
                best = (edits, fixed, broke)
        log(f"  {failure}: {wrong[failure]} wrong; kept {best[0] if best else 'nothing'}")
        if best is not None:
            policies.append({"failure": failure, "edits": best[0],
                             "why": "learned on the development split: fixes more queries than it breaks",
                             "evidence": {"seen": len(by_failure[failure]), "wrong": wrong[failure],
                                          "fixed": best[1], "broke": best[2]}})
    doc = {
        "version": 1,
        "about": ("Procedural memory distilled from failures on the development split: structured failure type to "
                  "the retrieval edit that fixed most queries, with counts. Retrieval only; no patient content."),
        "policies": policies,
        "provenance": {"split": "dev", "protocols": list(PROTOCOLS), "queries": len(dev), "seed": seed,
                       "smoke": smoke, "distilled": dt.date.today().isoformat(),
                       "command": "python -m medeventgraph.evaluation distill-memory"},
    }
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(orjson.dumps(doc, option=orjson.OPT_INDENT_2) + b"\n")
    load_memory(out)  # refuse (raise) rather than leave a file the loader would not accept
    return doc
