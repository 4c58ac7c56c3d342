"""summary.csv and report.html from verdicts.ndjson, read as a stream.

The report shows counts per item and verdict, a stacked bar plot (inline SVG, no external
assets) and, for each supported or conflicting finding, an anchor with its evidence.
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


def _finding(n: int, line: dict[str, Any]) -> str:
    rows = "".join(
        f"<tr><td>{html.escape(e['polarity'])}</td><td>{html.escape(e['kind'])}</td>"
        f"<td>{html.escape(str(e.get('time') or ''))}</td><td><code>{html.escape(e['reference'])}</code></td>"
        f"<td>{html.escape(e.get('context', ''))}</td></tr>" for e in line.get("evidence", []))
    return (f'<section id="f{n}"><h3>{html.escape(line["verdict"])}: {html.escape(line.get("title", line["item"]))}'
            f'</h3><p>{html.escape((line.get("finding") or {}).get("detail", ""))}</p><p>patient <code>{html.escape(line["patient"])}</code> · bundle '
            f'<code>{html.escape(line["bundle_hash"][:16])}</code></p><table><tr><th>polarity</th><th>kind</th>'
            f'<th>time</th><th>source</th><th>evidence</th></tr>{rows}</table></section>')


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
            index.append(f'<li><a href="#f{shown}">{html.escape(line["verdict"])} · '
                         f'{html.escape(line["item"])} · patient {html.escape(line["patient"])}</a></li>')
            sections.append(_finding(shown, line))
    more = f"<p>First {shown} of {total} findings; all are in verdicts.ndjson.</p>" if total > shown else ""
    template = Template(packaged_text("medeventgraph.screen", "report.html"))
    path.write_text(template.substitute(
        patients=patients, issues=issues, findings=total, counts=table, plot=_svg(counts),
        index="".join(index) or "<li>none</li>", sections="".join(sections), more=more), encoding="utf-8")
