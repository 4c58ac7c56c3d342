"""`python -m medeventgraph.evaluation distill-memory`: procedural memory learned from failures.

On the DEV split only, of T11 (paraphrased event names: the protocol where retrieval decides,
benchmarks/evaluation/protocol_paraphrase.py), the search runs as T11's S20-dense row does
(20 candidates, dense channel available to replanning) starting from no procedural
knowledge: every failure type gets only the generic edit (widen, more hits). For every
structured failure type the search reported on a query it got wrong, each candidate retrieval
edit is tried as memory for that failure type; an edit is kept when it fixes more dev queries
than it breaks. The result is written as data (`core/resources/memory.json` by default) with
counts and provenance, and loaded back through `core.memory.load_memory`, which refuses
anything patient-specific. Never part of `make eval`.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter, defaultdict
from pathlib import Path

import orjson
from medeventgraph.core.index import build_index
from medeventgraph.core.memory import load_memory
from medeventgraph.core.verdict import FailureType
from medeventgraph.evaluation.data import load_corpus
from medeventgraph.evaluation.protocol_paraphrase import GENERIC, paraphrase_cases, run_case, settings_for
from medeventgraph.evaluation.protocols import Caps, generate
from medeventgraph.evaluation.runner import split_patients

__all__ = ["CANDIDATE_EDITS", "PROTOCOLS", "distill"]

PROTOCOLS = ("T11",)
CANDIDATE_EDITS: tuple[dict[str, object], ...] = (
    {"note_mentions": True},
    {"add_channel": "dense"},
    {"widen": 4.0},
    {"more_hits": 2},
    {"follow_episode": True},
    {"widen": 2.0, "more_hits": 2},
)


def distill(data: Path, out: Path, *, smoke: bool = False, seed: int = 7, log=print) -> dict:
    corpus = load_corpus(data, max_patients=3 if smoke else None)
    caps = Caps(encounter_pairs=2, patient_pairs=1, masked=1, distracted=2, chains=1, hidden=1) if smoke else Caps()
    splits = split_patients(corpus, seed)
    dev = [(c, g) for c, g in paraphrase_cases(generate(list(corpus.patients.values()), caps, seed))
           if splits[c.patient] == "dev"]
    settings = settings_for("S20-dense")
    indexes: dict[str, object] = {}

    def run(case, memory):
        if case.patient not in indexes:
            indexes[case.patient] = build_index(corpus.patients[case.patient].record, settings)
        verdict, failure = run_case(indexes[case.patient], case, settings, memory)
        return verdict == "supported", failure

    base = {}
    for c, g in dev:
        said, failure = run(c, GENERIC)
        base[c.id] = (said == (g.binary == "supported"), failure)
    by_failure: dict[str, list] = defaultdict(list)
    for c, g in dev:
        if base[c.id][1]:
            by_failure[base[c.id][1]].append((c, g))
    wrong = Counter(base[c.id][1] for c, _ in dev if not base[c.id][0] and base[c.id][1])
    log(f"  {len(dev)} dev queries; wrong without procedural knowledge, by failure: {dict(wrong)}")
    policies = []
    for failure in sorted(wrong):
        best = None
        for edits in CANDIDATE_EDITS:
            memory = {**GENERIC, FailureType(failure): edits}
            fixed = broke = 0
            for c, g in by_failure[failure]:
                said, _ = run(c, memory)
                right = said == (g.binary == "supported")
                fixed += right and not base[c.id][0]
                broke += base[c.id][0] and not right
            log(f"    {failure} {edits}: fixed {fixed}, broke {broke}")
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
