"""Where each evidence entry goes on the timeline: the time axis, each entry's anchor and range,
and a small vertical stagger so entries at the same moment stay apart. Pure geometry."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

from medeventgraph.core import EvidenceOut, Verdict
from medeventgraph.model.occurrence import GRANULARITY_SPAN, Granularity
from medeventgraph.wording.templates import load_wording
from medeventgraph.wording.times import day_text, item_when, when_text

if TYPE_CHECKING:
    from medeventgraph.wording.timeline_svg import Band

__all__ = ["Axis", "Placed", "close_up_window", "place_items"]

_STEPS = [timedelta(minutes=m) for m in (15, 30)] + [timedelta(hours=h) for h in (1, 2, 3, 6, 12)] + [
    timedelta(days=d) for d in (1, 2, 7, 14, 30, 91, 182, 365)]
_MAX_TICKS = 8
_STAGGER = (0, -13, 13, -24, 24)
_POLARITY = {"supports": "supports the finding", "counters": "speaks against it", "neutral": "related"}


@dataclass(frozen=True)
class Axis:
    start: datetime
    end: datetime
    left: float
    right: float

    def x(self, t: datetime) -> float:
        span = (self.end - self.start).total_seconds() or 1.0
        return self.left + (self.right - self.left) * (t - self.start).total_seconds() / span

    def step(self) -> timedelta:
        span = self.end - self.start
        return next((s for s in _STEPS if span / s <= _MAX_TICKS), _STEPS[-1])

    def ticks(self) -> list[tuple[datetime, str]]:
        step = self.step()
        unit = min(timedelta(days=1), step)
        epoch = datetime(1970, 1, 1, tzinfo=UTC)
        t = epoch + ((self.start - epoch) // unit + 1) * unit
        out: list[tuple[datetime, str]] = []
        while t < self.end and len(out) < 40:
            if step < timedelta(days=1):
                text = t.strftime("%H:%M") if t.hour or t.minute else f"{t.day} {t.strftime('%b')}"
            elif step >= timedelta(days=182):
                text = t.strftime("%b %Y")
            else:
                text = f"{t.day} {t.strftime('%b')}"
            out.append((t, text))
            t += step
        return out

    def describe(self) -> str:
        return f"{day_text(self.start)} to {day_text(self.end)}"


@dataclass(frozen=True)
class Placed:
    item: EvidenceOut
    event: str
    x: float
    y: float
    range: tuple[float, float] | None
    origin: str  # structured | note | derived
    label: str


@dataclass(frozen=True)
class _Extent:
    anchor: datetime | None  # None: the start of the axis (an open "no later than" range)
    lo: datetime | None
    hi: datetime | None


def _extent(item: EvidenceOut, bands: dict[str, Band]) -> _Extent | None:
    w = item_when(item)
    band = bands.get(item.encounter or "")
    if w is None:
        if band is None:
            return None
        end = band.end or band.start
        return _Extent(band.start + (end - band.start) / 2, band.start, end)
    span = GRANULARITY_SPAN.get(Granularity(w.granularity), timedelta(0))
    if w.bound:  # known only to be no later than the note's date: from the encounter start (or the axis start)
        return _Extent(w.start, band.start if band and band.start < w.start else None, w.start)
    if w.end is not None and w.end > w.start:
        return _Extent(w.start, w.start, w.end)
    if span >= timedelta(days=1):
        return _Extent(w.start + span / 2, w.start, w.start + span)
    return _Extent(w.start, None, None)


def _bounds(extents: Sequence[_Extent], bands: Sequence[Band]) -> tuple[datetime, datetime]:
    times = [t for e in extents for t in (e.anchor, e.lo, e.hi) if t is not None]
    times += [t for b in bands for t in (b.start, b.end) if t is not None]
    lo, hi = min(times), max(times)
    pad = max((hi - lo) * 0.04, timedelta(minutes=30))
    return lo - pad, hi + pad


def _inside(ext: _Extent, start: datetime, end: datetime) -> bool:
    lo = ext.lo or ext.anchor or start
    hi = ext.hi or ext.anchor or end
    return lo <= end and hi >= start


def close_up_window(verdict: Verdict, bands: Sequence[Band], *, share: float = 0.1) -> tuple[datetime, datetime] | None:
    """A window around the deciding pairs when they take up less than `share` of the whole
    timeline (two doses 90 minutes apart in a week-long stay): drawn as a second, close-up axis."""
    by_ref = {b.reference: b for b in bands}
    by_id = {e.occurrence: e for e in verdict.evidence}
    extents = [x for e in verdict.evidence if (x := _extent(e, by_ref)) is not None]
    times = []
    for rel in verdict.relations:
        for occ in rel.pair:
            w = item_when(by_id[occ]) if occ in by_id else None
            if w is not None and not w.bound:
                times.append(w.start)
    if len(times) < 2 or not extents:
        return None
    start, end = _bounds(extents, bands)
    lo, hi = min(times), max(times)
    if (hi - lo) >= (end - start) * share:
        return None
    pad = max((hi - lo) * 0.6, timedelta(hours=1))
    return lo - pad, hi + pad


def place_items(verdict: Verdict, lanes: Sequence[tuple[str, str]], bands: Sequence[Band], *, left: float,
                right: float, top: float, lane: float,
                window: tuple[datetime, datetime] | None = None) -> tuple[Axis, dict[tuple[str, str], Placed]]:
    w = load_wording()
    by_ref = {b.reference: b for b in bands}
    names = dict(lanes)
    extents = {e.occurrence: ex for e in verdict.evidence if (ex := _extent(e, by_ref)) is not None}
    if window is not None:
        extents = {k: ex for k, ex in extents.items() if _inside(ex, *window)}
    if not extents:
        epoch = datetime(1970, 1, 1, tzinfo=UTC)
        return Axis(epoch, epoch + timedelta(days=1), left, right), {}
    start, end = window or _bounds(list(extents.values()), bands)
    axis = Axis(start, end, left, right)
    placed: dict[tuple[str, str], Placed] = {}
    for k, (event, _) in enumerate(lanes):
        y0 = top + k * lane + lane / 2
        row = []
        for item in verdict.evidence:
            ext = extents.get(item.occurrence)
            if ext is None or event not in item.events:
                continue
            lo = ext.lo if ext.lo is not None else (start if ext.hi is not None else None)
            rng = None
            if lo is not None and ext.hi is not None:
                rng = (axis.x(max(lo, start)), axis.x(min(ext.hi, end)))
            anchor = min(max(ext.anchor or start, start), end)  # a bound past the window sits at its edge
            row.append((axis.x(anchor), item, rng))
        row.sort(key=lambda r: (r[0], r[1].occurrence))
        last_x, k_stagger = None, 0
        for x, item, rng in row:
            k_stagger = k_stagger + 1 if last_x is not None and abs(x - last_x) < 12 else 0
            last_x = x
            origin = "note" if item.origin == "note" else ("derived" if item.origin == "derived" else "structured")
            kind = "Note" if origin == "note" else w.resource_labels.get(item.source.reference.split("/", 1)[0], "Entry")
            label = (f"{names[event]}: {kind}, {' '.join(item.concept.split())}, "
                     f"{when_text(item_when(item))}; {_POLARITY.get(item.polarity, item.polarity)}")
            placed[(event, item.occurrence)] = Placed(item, event, x, y0 + _STAGGER[k_stagger % len(_STAGGER)], rng,
                                                      origin, label)
    return axis, placed
