"""N1: real-language questions over real transcribed reports (MTSamples bundles, notes only).

The questions and labels are `mtsamples_dev.jsonl` beside this module, written by hand from
the note text by the rules in benchmarks/README.md ("N1: MTSamples development set"): each
label quotes the deciding words; only cases every careful reader agrees on; supported and
not supported in balance, the reasons for "not" being negated, hypothetical, family,
historical, reversed or absent. No label was read off the verifier's output.
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

from medeventgraph.evaluation.standalone import StandaloneCase

__all__ = ["DATA", "NAME", "NOTES", "TITLE", "cases", "load_dev_set"]

NAME = "N1"
TITLE = "real-language questions on real reports (MTSamples development set, notes only)"
DATA = "mtsamples/bundles"
NOTES = True  # the record is one note: the note pipeline is the evidence
_EXPECTED = {"reversed": "refuted", "negated": "refuted"}  # other reasons: nothing establishes it
SMOKE_CASES = 8


def load_dev_set() -> list[dict]:
    text = resources.files("medeventgraph.evaluation").joinpath("mtsamples_dev.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def cases(folder: Path, smoke: bool) -> list[StandaloneCase]:
    rows = load_dev_set()
    if smoke:  # both classes: the first supported and not-supported halves
        pos = [r for r in rows if r["label"] == "supported"][: SMOKE_CASES // 2]
        neg = [r for r in rows if r["label"] != "supported"][: SMOKE_CASES // 2]
        rows = pos + neg
    out = []
    for r in rows:
        if not (folder / f"{r['patient']}.json").is_file():
            continue
        expected = "supported" if r["label"] == "supported" else _EXPECTED.get(r["reason"], "insufficient")
        out.append(StandaloneCase(r["id"], r["patient"], r["reason"], expected, r["query"]))
    return out
