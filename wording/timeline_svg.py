"""The evidence timeline as SVG, drawn on the server from the verdict alone (plus the periods of
the encounters it cites): one time axis, encounter bands, a lane per query event, a mark per
evidence entry, and the deciding pair joined and labelled with its interval.

Marks: shape by origin (circle = structured row, diamond = note mention, square = derived),
colour by polarity (green supports, red counters, grey neutral). A time known only to the day,
an interval, a "no later than" note date and a time known only by its encounter are drawn as a
bar over the range it can lie in. Every mark is focusable and labelled for screen readers; it
carries `data-occurrence` so the page can show its source. Text is XML-escaped; no script, no
style attributes (the page's Content-Security-Policy allows neither inline).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from xml.sax.saxutils import escape, quoteattr

from medeventgraph.core import Verdict
from medeventgraph.wording.timeline_layout import Axis, Placed, place_items
from medeventgraph.wording.times import gap_label, interval, item_when

__all__ = ["Band", "timeline_svg"]

WIDTH, LEFT, RIGHT, TOP, LANE, LEGEND = 1000, 170, 24, 40, 56, 56
COLOUR = {"supports": "#1a7f37", "counters": "#cf222e", "neutral": "#6e7781"}
PAIR_COLOUR = {"compatible": "#1f3b57", "incompatible": "#cf222e", "unknown": "#6e7781"}


@dataclass(frozen=True, slots=True)
class Band:
    reference: str  # "Encounter/123"
    start: datetime
    end: datetime | None
    label: str  # "Inpatient 3–9 Feb 2015"


def _attr(**kv: object) -> str:
    return " ".join(f"{k.rstrip('_').replace('_', '-')}={quoteattr(str(v))}" for k, v in kv.items())


def _shape(p: Placed, colour: str) -> str:
    x, y = p.x, p.y
    if p.origin == "note":
        pts = f"{x:.1f},{y - 8:.1f} {x + 8:.1f},{y:.1f} {x:.1f},{y + 8:.1f} {x - 8:.1f},{y:.1f}"
        return f"<polygon {_attr(points=pts, fill=colour, stroke='#ffffff', stroke_width=1.5)}/>"
    if p.origin == "derived":
        return f"<rect {_attr(x=f'{x - 6:.1f}', y=f'{y - 6:.1f}', width=12, height=12, fill=colour, stroke='#ffffff', stroke_width=1.5)}/>"
    return f"<circle {_attr(cx=f'{x:.1f}', cy=f'{y:.1f}', r=7, fill=colour, stroke='#ffffff', stroke_width=1.5)}/>"


def _mark(p: Placed) -> str:
    colour = COLOUR.get(p.item.polarity, COLOUR["neutral"])
    parts = []
    if p.range is not None:
        x0, x1 = p.range
        parts.append(f"<rect {_attr(class_='range', x=f'{x0:.1f}', y=f'{p.y - 4:.1f}', width=f'{max(x1 - x0, 2):.1f}', height=8, rx=4, fill=colour, fill_opacity=0.28, stroke=colour, stroke_opacity=0.7)}/>")
    parts.append(_shape(p, colour))
    label = p.label
    attrs = _attr(class_=f"mark {p.item.polarity} {p.origin}", tabindex=0, role="button", aria_label=label,
                  data_occurrence=p.item.occurrence, data_event=p.event, data_polarity=p.item.polarity,
                  data_origin=p.origin, data_range="yes" if p.range else "no")
    return f"<g {attrs}><title>{escape(label)}</title>{''.join(parts)}</g>"


def _axis(axis: Axis, height: int) -> list[str]:
    out = [f"<line {_attr(x1=LEFT, y1=TOP - 6, x2=WIDTH - RIGHT, y2=TOP - 6, stroke='#8c959f')}/>"]
    for t, text in axis.ticks():
        x = axis.x(t)
        out.append(f"<line {_attr(x1=f'{x:.1f}', y1=TOP - 10, x2=f'{x:.1f}', y2=height - LEGEND, stroke='#d0d7de', stroke_dasharray='2 3')}/>")
        out.append(f"<text {_attr(x=f'{x:.1f}', y=TOP - 14, text_anchor='middle', font_size=11, fill='#3d4450')}>{escape(text)}</text>")
    return out


def _bands(bands: list[Band], axis: Axis, lanes: int) -> list[str]:
    out = []
    y0, h = TOP, lanes * LANE
    for k, b in enumerate(bands):
        x0 = axis.x(max(b.start, axis.start))
        x1 = axis.x(min(b.end or axis.end, axis.end))
        if x1 <= x0:
            continue
        out.append(f"<g {_attr(class_='encounter', data_reference=b.reference, aria_label=b.label)}><title>{escape(b.label)}</title>"
                   f"<rect {_attr(x=f'{x0:.1f}', y=y0, width=f'{x1 - x0:.1f}', height=h, fill='#dbe9f7' if k % 2 == 0 else '#e8eef5', fill_opacity=0.7)}/>"
                   f"<text {_attr(x=f'{x0 + 4:.1f}', y=y0 + h - 6, font_size=10, fill='#1f3b57')}>{escape(b.label)}</text></g>")
    return out


def _pair_line(verdict: Verdict, placed: dict[tuple[str, str], Placed]) -> list[str]:
    out = []
    for rel in verdict.relations:
        if len(rel.pair) != 2:
            continue
        a = placed.get((rel.source, rel.pair[0]))
        b = placed.get((rel.target, rel.pair[1]))
        if a is None or b is None:
            continue
        wa, wb = item_when(a.item), item_when(b.item)
        if rel.stated and rel.timing == "compatible" and not (wa and wb and wa.exact and wb.exact):
            text = "stated in note"
        elif wa and wb and wa.exact and wb.exact:
            # Labelled from the event meant to come first: "A after B" runs from B to A.
            d, coarse = interval(wb, wa) if rel.type == "after" else interval(wa, wb)
            text = gap_label(d, coarse=coarse)
        else:
            text = "by note date" if (wa and wa.bound) or (wb and wb.bound) else "order only"
        colour = PAIR_COLOUR.get(rel.timing, PAIR_COLOUR["unknown"])
        dash = "" if rel.timing == "compatible" else "5 4"
        lift = min(a.y, b.y) - 24
        mid_x = (a.x + b.x) / 2
        pill = 16 + 7.5 * len(text)
        path = f"M {a.x:.1f} {a.y:.1f} C {a.x:.1f} {lift:.1f}, {b.x:.1f} {lift:.1f}, {b.x:.1f} {b.y:.1f}"
        label = f"Deciding pair: {rel.source} to {rel.target}, {text} ({rel.timing})"
        out.append(f"<g {_attr(class_='pair', data_timing=rel.timing, data_from=a.item.occurrence, data_to=b.item.occurrence, aria_label=label)}>"
                   f"<title>{escape(label)}</title>"
                   f"<path {_attr(d=path, fill='none', stroke=colour, stroke_width=2, stroke_dasharray=dash or 'none')}/>"
                   f"<rect {_attr(x=f'{mid_x - pill / 2:.1f}', y=f'{lift - 4:.1f}', width=f'{pill:.1f}', height=20, rx=10, fill='#ffffff', stroke=colour)}/>"
                   f"<text {_attr(class_='pair-label', x=f'{mid_x:.1f}', y=f'{lift + 10:.1f}', text_anchor='middle', font_size=12, font_weight=600, fill=colour)}>{escape(text)}</text></g>")
    return out


def _legend(y: int) -> list[str]:
    items = [("circle", "structured row"), ("diamond", "note mention"), ("square", "derived"),
             ("supports", "supports"), ("counters", "counters"), ("neutral", "neutral"), ("range", "time range")]
    out, x = [f"<g {_attr(class_='legend', aria_label='Legend')}>"], LEFT
    for key, text in items:
        colour = COLOUR.get(key, "#3d4450")
        if key == "circle":
            out.append(f"<circle {_attr(cx=x, cy=y, r=6, fill='#3d4450')}/>")
        elif key == "diamond":
            out.append(f"<polygon {_attr(points=f'{x},{y - 7} {x + 7},{y} {x},{y + 7} {x - 7},{y}', fill='#3d4450')}/>")
        elif key == "square":
            out.append(f"<rect {_attr(x=x - 5, y=y - 5, width=10, height=10, fill='#3d4450')}/>")
        elif key == "range":
            out.append(f"<rect {_attr(x=x - 8, y=y - 4, width=22, height=8, rx=4, fill='#3d4450', fill_opacity=0.28, stroke='#3d4450')}/>")
            x += 8
        else:
            out.append(f"<rect {_attr(x=x - 6, y=y - 6, width=12, height=12, rx=2, fill=colour)}/>")
        out.append(f"<text {_attr(x=x + 11, y=y + 4, font_size=11, fill='#3d4450')}>{escape(text)}</text>")
        x += 22 + 7 * len(text)
    out.append("</g>")
    return out


def timeline_svg(verdict: Verdict, lanes: list[tuple[str, str]], bands: list[Band], *,
                 window: tuple[datetime, datetime] | None = None) -> str:
    """`lanes` is [(event id, name)] in query order; `bands` the cited encounters' periods;
    `window` limits the axis (the close-up around the deciding pair)."""
    height = TOP + len(lanes) * LANE + LEGEND
    axis, placed = place_items(verdict, lanes, bands, left=LEFT, right=WIDTH - RIGHT, top=TOP, lane=LANE,
                               window=window)
    if not placed:
        return (f"<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {WIDTH} 60\" role=\"img\" "
                "class=\"timeline empty\" aria-label=\"No timeline\"><text x=\"20\" y=\"34\" font-size=\"13\" "
                "fill=\"#3d4450\">No entry with a known time or encounter: nothing to draw.</text></svg>")
    out = [f"<svg xmlns=\"http://www.w3.org/2000/svg\" {_attr(viewBox=f'0 0 {WIDTH} {height}', role='group', aria_label=f'Evidence timeline, {axis.describe()}', class_='timeline', font_family='system-ui, sans-serif')}>"]
    out += _bands(bands, axis, len(lanes))
    out += _axis(axis, height)
    for k, (event, name) in enumerate(lanes):
        y = TOP + k * LANE + LANE / 2
        out.append(f"<line {_attr(x1=LEFT, y1=f'{y:.1f}', x2=WIDTH - RIGHT, y2=f'{y:.1f}', stroke='#c9d1d9')}/>")
        out.append(f"<text {_attr(class_='lane-label', x=LEFT - 10, y=f'{y + 4:.1f}', text_anchor='end', font_size=13, font_weight=600, fill='#1d2330')}>{escape(_short(name))}</text>")
    out += _pair_line(verdict, placed)
    # Ranges first, so a bar never hides a mark drawn before it.
    out += [_mark(p) for p in sorted(placed.values(), key=lambda p: p.range is None)]
    out += _legend(height - LEGEND // 2)
    out.append("</svg>")
    return "".join(out)


def _short(name: str, limit: int = 24) -> str:
    return name if len(name) <= limit else name[: limit - 1] + "…"
