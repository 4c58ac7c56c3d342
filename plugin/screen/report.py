"""summary.csv and report.html from verdicts.ndjson, read as a stream.

The report shows counts per item and verdict, a stacked bar plot (inline SVG, no external
assets) and, for each supported or conflicting finding, an anchor with its evidence in the
wording layer's words (the line's `finding`: human dates, the source's words); the verdict
label, scores and bundle hash only in the finding's audit line.
"""

from __future__ import annotations

import csv
import html
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from string import Template
from typing import Any

import orjson
from medeventgraph.model.packaged import packaged_text

__all__ = ["LABELS", "count_verdicts", "read_lines", "write_report", "write_summary"]

LABELS = ("supported", "conflicting", "refuted", "insufficient")
_COLOURS = {"supported": "#c0392b", "conflicting": "#e67e22", "refuted": "#27ae60", "insufficient": "#95a5a6"}
_MAX_FINDINGS = 2_000  # shown in the page; every one is in verdicts.ndjson


def read_lines(path: Path) -> Iterator[dict[str, Any]]:
    with path.open("rb") as f:
        for line in f:
            if line.strip():
                yield orjson.loads(line)


def count_verdicts(path: Path) -> tuple[dict[str, str], dict[str, Counter[str]], int]:
    """(item -> title, item -> verdict counts, patients)."""
    titles: dict[str, str] = {}
    counts: dict[str, Counter[str]] = {}
    patients: set[str] = set()
    for line in read_lines(path):
        titles.setdefault(line["item"], line.get("title", line["item"]))
        counts.setdefault(line["item"], Counter())[line["verdict"]] += 1
        patients.add(line["patient"])
    return titles, counts, len(patients)


def write_summary(path: Path, titles: dict[str, str], counts: dict[str, Counter[str]]) -> None:
    with path.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["item", "title", *LABELS, "total"])
        for item in sorted(counts):
            c = counts[item]
            w.writerow([item, titles[item], *(c[label] for label in LABELS), sum(c.values())])


def _svg(counts: dict[str, Counter[str]]) -> str:
    items = sorted(counts)
    width, label_w, bar_h, gap = 720, 220, 22, 8
    height = len(items) * (bar_h + gap) + 40
    most = max((sum(c.values()) for c in counts.values()), default=1) or 1
    parts = [(f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" role="img" '
              f'aria-label="verdicts per watch-list item">')]
    for row, item in enumerate(items):
        y, x = row * (bar_h + gap), float(label_w)
        parts.append(f'<text x="0" y="{y + 16}" font-size="12">{html.escape(item)}</text>')
        for label in LABELS:
            n = counts[item][label]
            w = (width - label_w - 10) * n / most
            if n:
                parts.append(f'<rect x="{x:.1f}" y="{y}" width="{w:.1f}" height="{bar_h}" fill="{_COLOURS[label]}">'
                             f'<title>{label}: {n}</title></rect>')
            x += w
    legend_y = len(items) * (bar_h + gap) + 20
    for i, label in enumerate(LABELS):
        parts.append(f'<rect x="{label_w + i * 120}" y="{legend_y - 10}" width="12" height="12" '
                     f'fill="{_COLOURS[label]}"/><text x="{label_w + i * 120 + 16}" y="{legend_y}" '
                     f'font-size="12">{label}</text>')
    parts.append("</svg>")
    return "".join(parts)


_POLARITY = {"supports": "for", "counters": "against", "neutral": "related"}


def _row(e: dict[str, Any]) -> str:
    """A deciding entry in the wording layer's words (medeventgraph.wording.evidence): the human
    date, the entry's kind and the source's words with the deciding mention marked."""
    quals = f" ({', '.join(e['qualifiers'])})" if e.get("qualifiers") else ""
    mention = f"<mark>{html.escape(e['mention'])}</mark>" if e.get("mention") else ""
    words = f"{html.escape(e.get('before', ''))}{mention}{html.escape(e.get('after', ''))}"
    polarity = e.get("polarity", "neutral")
    return (f'<tr class="{html.escape(polarity)}"><td>{_POLARITY.get(polarity, "related")}</td>'
            f"<td>{html.escape(e.get('when', ''))}</td><td>{html.escape(e.get('label', ''))}{html.escape(quals)}</td>"
            f"<td>{words}</td><td><code>{html.escape(e.get('source', ''))}</code></td></tr>")


def _finding(n: int, line: dict[str, Any]) -> str:
    words = line.get("finding") or {}
    rows = "".join(_row(e) for e in words.get("evidence", []))
    more = words.get("more") or 0
    more_text = (f'<p class="more">{more} more related {"entry" if more == 1 else "entries"} in the record '
                 f"(verdicts.ndjson).</p>") if more else ""
    table = (f"<table><tr><th></th><th>when</th><th>entry</th><th>the record's words</th><th>source</th></tr>"
             f"{rows}</table>") if rows else ""
    # codes, scores, ids and hashes: only here, for audit
    audit = words.get("audit") or f"Audit: {line['verdict']} · bundle {line['bundle_hash']}"
    return (f'<section id="f{n}"><h3>{html.escape(words.get("summary") or line.get("title", line["item"]))}</h3>'
            f'<p class="title">{html.escape(line.get("title", line["item"]))}</p>'
            f'<p>{html.escape(words.get("detail", ""))}</p>{table}{more_text}'
            f'<p class="audit"><code>{html.escape(audit)} · patient {html.escape(line["patient"])}</code></p>'
            f"</section>")


def write_report(path: Path, verdicts: Path, titles: dict[str, str], counts: dict[str, Counter[str]],
                 patients: int, issues: int) -> None:
    table = "".join(f"<tr><td>{html.escape(item)}</td><td>{html.escape(titles[item])}</td>"
                    + "".join(f"<td>{counts[item][label]}</td>" for label in LABELS) + "</tr>"
                    for item in sorted(counts))
    index, sections, shown, total = [], [], 0, 0
    for line in read_lines(verdicts):
        if line["verdict"] not in ("supported", "conflicting"):
            continue
        total += 1
        if shown < _MAX_FINDINGS:
            shown += 1
            summary = (line.get("finding") or {}).get("summary") or line["verdict"]
            index.append(f'<li><a href="#f{shown}">{html.escape(line.get("title", line["item"]))}: '
                         f'{html.escape(summary)} · patient {html.escape(line["patient"])}</a></li>')
            sections.append(_finding(shown, line))
    more = f"<p>First {shown} of {total} findings; all are in verdicts.ndjson.</p>" if total > shown else ""
    template = Template(packaged_text("medeventgraph.screen", "report.html"))
    path.write_text(template.substitute(
        patients=patients, issues=issues, findings=total, counts=table, plot=_svg(counts),
        index="".join(index) or "<li>none</li>", sections="".join(sections), more=more), encoding="utf-8")
