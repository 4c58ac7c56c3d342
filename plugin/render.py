"""Human-readable renderings: verdict tables and timelines for the terminal."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from medeventgraph.core.graph import sort_key
from medeventgraph.core.store import format_time
from medeventgraph.core.verdict import Verdict, reading_order
from medeventgraph.occurrence import Occurrence, TimeType

__all__ = ["format_table", "timeline_rows", "verdict_table"]


def _clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def format_table(rows: Sequence[dict[str, Any]], columns: Sequence[str], max_width: int = 60) -> str:
    cells = [[_clip(str(r.get(c, "") if r.get(c) is not None else ""), max_width) for c in columns] for r in rows]
    widths = [max([len(c)] + [len(row[i]) for row in cells]) for i, c in enumerate(columns)]
    line = "  ".join(c.ljust(w) for c, w in zip(columns, widths, strict=True))
    out = [line, "  ".join("-" * w for w in widths)]
    out += ["  ".join(v.ljust(w) for v, w in zip(row, widths, strict=True)) for row in cells]
    return "\n".join(out) + "\n"


def verdict_table(v: Verdict) -> str:
    head = [
        f"query     {v.id}",
        f"patient   {v.patient}",
        f"verdict   {v.verdict.value.upper()}   (S+ {v.s_plus:.2f}, S- {v.s_minus:.2f})"
        + (f"   failure: {v.failure.value}" if v.failure else ""),
        f"bundle    {v.bundle_hash[:23]}…",
    ]
    if v.excluded:
        head.append("excluded  " + ", ".join(f"{n} {t}" for t, n in sorted(v.excluded.items())) + " (other patients)")
    for r in v.relations:
        head.append(f"relation  {r.explanation}")
    rows = [
        {
            "polarity": e.polarity,
            "events": ",".join(e.events),
            "time": _shown_time(e),
            "scope": e.scope,
            "source": e.source.reference + (f" [{e.source.start}:{e.source.end}]" if e.source.start is not None else ""),
            "evidence": e.context,
        }
        for e in sorted(v.evidence, key=reading_order)
    ]
    return "\n".join(head) + "\n\n" + format_table(rows, ["polarity", "events", "time", "scope", "source", "evidence"])


def _shown_time(e: Any) -> str:
    if e.time.type == "encounter-bounded":
        return f"{e.time.start} – {e.time.end or 'open'} (encounter)"
    return e.time.start or (f"≤ {e.documented.start}" if e.documented else "unknown")


def timeline_rows(occurrences: Iterable[Occurrence], kinds: set[str] | None = None) -> list[dict[str, Any]]:
    rows = []
    for o in sorted(occurrences, key=sort_key):
        if kinds and o.kind.value not in kinds:
            continue
        value = ""
        if o.value is not None:
            value = f"{o.value.quantity:g} {o.value.unit or ''}".strip() if o.value.quantity is not None else (o.value.text or "")
        rows.append(
            {
                "time": format_time(o.time.start) if o.time.start else "unknown",
                "granularity": o.time.granularity.value,
                # an encounter-bounded time is the whole stay, not an instant: show its end too
                "time_type": o.time.type.value + (f" (to {format_time(o.time.end) if o.time.end else 'open'})"
                                                  if o.time.type is TimeType.ENCOUNTER_BOUNDED else ""),
                "kind": o.kind.value,
                "concept": o.concept.text,
                "value": value,
                "encounter": (o.encounter or "").removeprefix("Encounter/")[:13],
                "reference": o.id,
            }
        )
    return rows
