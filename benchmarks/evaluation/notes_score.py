"""N1's figures from its rows (notes_run.ask_all), per split: the issue's scoring, nothing tuned.

- supported recall: share of gold `supported` answered `supported`;
- FSR (false-support rate): share of gold `not` answered `supported`;
- BA: the mean of recall on `supported` and on `not` (any verdict other than `supported`,
  an error row included, counts as not);
- events found: share of gold `supported` questions whose every named event the core's
  grounding found at least once (an error row counts as not found);
- per reason: how many, the share answered as labelled, and the verdicts and failure types.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

__all__ = ["GOALS", "by_reason", "rates", "score"]

# The goal figures on `check` (#19), in percent; reported beside the measure, never tuned to.
GOALS: dict[str, tuple[str, float]] = {"ba": (">=", 85.0), "fsr": ("<=", 3.0), "sup_recall": (">=", 75.0),
                                       "events_found": (">=", 95.0)}


def _share(hits: int, n: int) -> float | None:
    return hits / n if n else None


def rates(rows: list[dict[str, Any]]) -> dict[str, Any]:
    pos = [r for r in rows if r["gold"] == "supported"]
    neg = [r for r in rows if r["gold"] == "not"]
    recall = _share(sum(r["verdict"] == "supported" for r in pos), len(pos))
    fsr = _share(sum(r["verdict"] == "supported" for r in neg), len(neg))
    ba = (recall + 1 - fsr) / 2 if recall is not None and fsr is not None else None
    found = sum(r["events_found"] is True for r in pos)
    timed = [r["ms"] for r in rows if r["ms"] is not None]
    return {"n": len(rows), "supported": len(pos), "not": len(neg), "errors": sum(r["error"] is not None for r in rows),
            "ba": ba, "fsr": fsr, "sup_recall": recall, "events_found": _share(found, len(pos)),
            "events_found_count": found, "verdicts": dict(Counter(r["verdict"] for r in rows)),
            "ms_per_question": round(sum(timed) / len(timed), 2) if timed else None}


def by_reason(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One entry per (gold, reason), supported reasons first, then by count."""
    keys = Counter((r["gold"], r["reason"]) for r in rows)
    out = []
    for (gold, reason), n in sorted(keys.items(), key=lambda kv: (kv[0][0] != "supported", -kv[1], kv[0][1])):
        mine = [r for r in rows if (r["gold"], r["reason"]) == (gold, reason)]
        right = sum((r["verdict"] == "supported") == (gold == "supported") for r in mine)
        out.append({"gold": gold, "reason": reason, "n": n, "recall": right / n,
                    "verdicts": dict(Counter(r["verdict"] for r in mine).most_common()),
                    "failures": dict(Counter(r["failure"] or "-" for r in mine if r["verdict"] != "supported")
                                     .most_common())})
    return out


def score(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Per split (in the order the rows name them): rates and reasons; plus the whole set."""
    splits = list(dict.fromkeys(r["split"] for r in rows if r["split"]))
    return {"reports": len({r["patient"] for r in rows if r["patient"]}), "all": rates(rows),
            "splits": {s: {**rates(mine), "reports": len({r["patient"] for r in mine}), "by_reason": by_reason(mine)}
                       for s in splits if (mine := [r for r in rows if r["split"] == s])},
            "goals": {k: {"op": op, "value": v, "split": "check"} for k, (op, v) in GOALS.items()}}
