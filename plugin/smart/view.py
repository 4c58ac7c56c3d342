"""What the SMART page shows beside the verdict: the plain-language finding, the evidence
timeline (server-rendered SVG) and, per evidence entry, its source (the resource's row, JSON
path and JSON, or the note's full text with the span to highlight).

Everything comes from the index the verdict was computed on, which holds only the session
patient's record, so the page can never show another patient's entry.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import orjson
from medeventgraph.core import EvidenceOut, Verdict, VerificationQuery
from medeventgraph.wording.evidence import EvidenceLine, evidence_line
from medeventgraph.wording.facts import event_names
from medeventgraph.wording.summary import finding_text
from medeventgraph.wording.templates import Wording, load_wording
from medeventgraph.wording.timeline_layout import close_up_window
from medeventgraph.wording.timeline_svg import Band, timeline_svg
from medeventgraph.wording.times import date_range

__all__ = ["page_payload"]

_MAX_SOURCES = 80
_MAX_NOTE_CHARS = 60_000
_MAX_JSON_CHARS = 8_000


def _parse(text: Any) -> datetime | None:
    if not isinstance(text, str):
        return None
    try:
        dt = datetime.fromisoformat(text)
    except ValueError:
        return None
    return dt if dt.tzinfo else None


def _encounter_bands(resources: dict[str, dict[str, Any]], refs: set[str], w: Wording) -> list[Band]:
    bands = []
    for ref in sorted(refs):
        res = resources.get(ref) or {}
        period = res.get("period")
        period = period if isinstance(period, dict) else {}
        start, end = _parse(period.get("start")), _parse(period.get("end"))
        if start is None:
            continue
        cls = res.get("class")
        cls = cls if isinstance(cls, dict) else {}
        word = w.encounter_classes.get(str(cls.get("code") or ""), "Encounter")
        label = f"{word} {date_range(start, end, sep='–')}" if end else f"{word} from {date_range(start, start)}"
        bands.append(Band(ref, start, end, label))
    return bands


def _source_view(index: Any, item: EvidenceOut, w: Wording) -> dict[str, Any]:
    src = item.source
    if src.start is not None and src.end is not None:
        doc = index.documents.get(src.reference)
        texts = [t for t in (doc.texts if doc else ()) if t.attachment == (src.attachment or 0)]
        if doc is not None and texts:
            text, offset = texts[0].text, 0
            if len(text) > _MAX_NOTE_CHARS:  # keep a window around the span
                offset = max(0, src.start - _MAX_NOTE_CHARS // 2)
                text = text[offset: offset + _MAX_NOTE_CHARS]
            return {"type": "note", "reference": src.reference, "title": doc.title or "Note",
                    "date": doc.date.start.isoformat() if doc.date.start else None,
                    "text": text, "start": src.start - offset, "end": src.end - offset, "section": src.section}
    raw = index.record.resources.get(src.reference)
    body = orjson.dumps(raw, option=orjson.OPT_INDENT_2).decode() if raw is not None else ""
    if len(body) > _MAX_JSON_CHARS:
        body = body[:_MAX_JSON_CHARS] + "\n…"
    # the row in the wording layer's words; the resource's own JSON below it is the source itself
    ln = evidence_line(item, w)
    quals = f" ({', '.join(ln.qualifiers)})" if ln.qualifiers else ""
    return {"type": "row", "reference": src.reference, "row": f"{ln.when} · {ln.label}{quals}: {ln.words}",
            "json_path": src.json_path,
            "json": body, "derived_from": list(item.derived_from)}


def _line(ln: EvidenceLine) -> dict[str, Any]:
    return {"occurrence": ln.occurrence, "polarity": ln.polarity, "when": ln.when, "label": ln.label,
            "before": ln.before, "mention": ln.mention, "after": ln.after, "qualifiers": list(ln.qualifiers),
            "reference": ln.reference, "span": ln.span}


def page_payload(index: Any, verdict: Verdict, query: VerificationQuery, *,
                 launch_encounter: str | None = None) -> dict[str, Any]:
    w = load_wording()
    finding = finding_text(verdict, query, wording=w)
    lanes = event_names(verdict, query, w)
    refs = {e.encounter for e in verdict.evidence if e.encounter}
    if launch_encounter:
        refs.add(f"Encounter/{launch_encounter.removeprefix('Encounter/')}")
    bands = _encounter_bands(index.record.resources, refs, w)
    window = close_up_window(verdict, bands)
    every = sorted((evidence_line(e, w) for e in verdict.evidence), key=lambda ln: ln.sort_key, reverse=True)
    return {
        "finding": {"label_word": w.label_words.get(verdict.verdict.value, verdict.verdict.value),
                    "summary": finding.summary, "checked": finding.checked, "audit": finding.audit_line,
                    "template": finding.template, "more": finding.more,
                    "evidence": [_line(ln) for ln in finding.evidence]},
        # every entry in the same words as the deciding ones (the "All entries" table), newest first
        "entries": [_line(ln) for ln in every],
        "lanes": [{"event": e, "name": n} for e, n in lanes],
        "timeline": timeline_svg(verdict, lanes, bands),
        "close_up": timeline_svg(verdict, lanes, bands, window=window) if window else None,
        "sources": {e.occurrence: _source_view(index, e, w) for e in verdict.evidence[:_MAX_SOURCES]},
        "encounter": launch_encounter,
    }
