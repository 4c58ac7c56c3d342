"""Which temporal library to build on: each candidate resolves the labelled expressions of
benchmarks/evaluation/temporal_dev.jsonl (taken from ../shared/data/mtsamples notes) against the
note's own date, and is scored by the rule in benchmarks/README.md ("Temporal expressions").

Run with every candidate installed beside the project (they are not its dependencies):

    pip install dateparser ctparse pyduckling-native-phihos timexy
    python benchmarks/bench_temporal_libs.py --data ../shared/data/mtsamples --out results

A candidate that is not installed is reported as such, never guessed. "medeventgraph" is the
project's own resolver (nlp/temporal.py), measured on the same items in the same run.
"""

from __future__ import annotations

import argparse
import base64
import json
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

LABELS = Path(__file__).resolve().parent / "evaluation" / "temporal_dev.jsonl"


def _anchors(bundle: Path) -> tuple[datetime, datetime | None, str]:
    data = json.loads(bundle.read_text())
    note_date, admitted, text = None, None, ""
    for entry in data["entry"]:
        r = entry["resource"]
        if r["resourceType"] == "DocumentReference":
            note_date = datetime.fromisoformat(r["date"])
            text = base64.b64decode(r["content"][0]["attachment"]["data"]).decode()
        elif r["resourceType"] == "Encounter":
            admitted = datetime.fromisoformat(r["period"]["start"])
    assert note_date is not None
    return note_date, admitted, text


def _correct(expected: dict | None, got: datetime | None) -> bool:
    if expected is None or got is None:
        return expected is None and got is None
    day = got.date().isoformat()
    if "day" in expected:
        return day == expected["day"]
    if "month" in expected:
        return day[:7] == expected["month"]
    if "year" in expected:
        return day[:4] == expected["year"]
    return expected["lo"] <= day <= expected["hi"]


def _dateparser() -> Callable[[str, datetime], datetime | None]:
    import dateparser

    def run(expr: str, base: datetime) -> datetime | None:
        settings = {"RELATIVE_BASE": base.replace(tzinfo=None), "PREFER_DATES_FROM": "past"}
        return dateparser.parse(expr, languages=["en"], settings=settings)

    return run


def _ctparse() -> Callable[[str, datetime], datetime | None]:
    from ctparse import ctparse
    from ctparse.types import Interval, Time

    def run(expr: str, base: datetime) -> datetime | None:
        r = ctparse(expr, ts=base.replace(tzinfo=None), timeout=1.0)
        if r is None:
            return None
        res = r.resolution
        if isinstance(res, Time) and res.year and res.month and res.day:
            return datetime(res.year, res.month, res.day)
        if isinstance(res, Interval) and res.t_from and res.t_from.year:
            t = res.t_from
            return datetime(t.year, t.month or 1, t.day or 1)
        return None

    return run


def _duckling() -> Callable[[str, datetime], datetime | None]:
    import duckling  # pyduckling-native-phihos installs the "duckling" module

    duckling.init()  # starts the Haskell runtime; parse() before it returns nothing
    ctx_lang = duckling.parse_lang("EN")
    dims = duckling.parse_dimensions(["time"])
    tz = duckling.load_time_zones("/usr/share/zoneinfo")

    def run(expr: str, base: datetime) -> datetime | None:
        ref = duckling.parse_ref_time(tz, "UTC", int(base.timestamp()))
        locale = duckling.parse_locale("EN_US", duckling.default_locale_lang(ctx_lang))
        context = duckling.Context(ref, locale)
        out = duckling.parse(expr, context, dims, False)
        for item in out:
            value = item["value"]
            v = value.get("value") or (value.get("from") or {}).get("value")
            if v:
                return datetime.fromisoformat(v[:19])
        return None

    return run


def _timexy() -> Callable[[str, datetime], datetime | None]:
    import spacy
    from timexy import Timexy  # noqa: F401  (registers the "timexy" factory)

    nlp = spacy.blank("en")
    nlp.add_pipe("timexy", config={"kb_id_type": "timex3", "label": "timexy", "overwrite": False})

    def run(expr: str, base: datetime) -> datetime | None:
        for ent in nlp(expr).ents:
            kb = ent.kb_id_  # TIMEX3 type="DATE" value="2021-04-17T00:00:00"
            if 'value="' in kb:
                v = kb.split('value="', 1)[1][:10]
                try:
                    return datetime.fromisoformat(v)
                except ValueError:
                    return None
        return None

    return run


CANDIDATES: dict[str, Callable[[], Callable[[str, datetime], datetime | None]]] = {
    "dateparser": _dateparser, "ctparse": _ctparse, "pyduckling-native-phihos": _duckling, "timexy": _timexy,
}


def _score_ours(items, data: Path) -> dict:
    from medeventgraph.nlp.temporal import Anchors, TimeFinder

    finder = TimeFinder()
    ok, granular, n, missed = 0, 0, 0, []
    t0 = time.perf_counter()
    for item in items:
        note_date, admitted, _ = _anchors(data / "bundles" / f"{item['doc']}.json")
        anchors = Anchors(note=note_date, admission=admitted)
        found = finder.find(item["sentence"], anchors)
        got = next((t for t in found if item["expression"].lower() in t.text.lower()
                    or t.text.lower() in item["expression"].lower()), None)
        good = _ours_correct(item["expected"], got)
        if not good:
            missed.append(item["expression"])
        ok += good
        part = (item["expected"] or {}).get("part")
        granular += good and (part is None or (got is not None and got.part == part))
        n += 1
    return {"correct": ok, "with_part_of_day": granular, "n": n, "ms": round(1000 * (time.perf_counter() - t0), 1),
            "missed": missed}


def _ours_correct(expected: dict | None, got) -> bool:
    """Like `_correct` on the window's start; a labelled range must lie inside our window
    (we return a range where the text states one, the libraries return a point)."""
    if got is None or got.time.start is None or expected is None or "lo" not in expected:
        return _correct(expected, got.time.start if got is not None else None)
    lo, hi = got.time.start_window()
    return lo.date().isoformat() <= expected["lo"] and expected["hi"] < hi.date().isoformat()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=Path(__file__).resolve().parents[2] / "shared" / "data" / "mtsamples")
    ap.add_argument("--out", type=Path, default=Path("results"))
    args = ap.parse_args()
    items = [json.loads(line) for line in LABELS.read_text().splitlines() if line.strip()]
    report: dict = {"n": len(items), "candidates": {}}
    for name, make in CANDIDATES.items():
        try:
            run = make()
        except Exception as exc:  # noqa: BLE001  (not installed, or its native part does not load here)
            report["candidates"][name] = {"available": False, "error": f"{type(exc).__name__}: {exc}"[:200]}
            continue
        ok, wrong, t0 = 0, [], time.perf_counter()
        for item in items:
            note_date, _, _ = _anchors(args.data / "bundles" / f"{item['doc']}.json")
            try:
                got = run(item["expression"], note_date)
            except Exception:  # noqa: BLE001  (a parser crash on an expression counts as a miss)
                got = None
            if _correct(item["expected"], got):
                ok += 1
            else:
                wrong.append(item["expression"])
        report["candidates"][name] = {"available": True, "correct": ok, "n": len(items),
                                      "ms": round(1000 * (time.perf_counter() - t0), 1), "missed": wrong}
    try:
        report["candidates"]["medeventgraph"] = {"available": True, **_score_ours(items, args.data)}
    except ImportError as exc:
        report["candidates"]["medeventgraph"] = {"available": False, "error": str(exc)}
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / "temporal_libraries.json"
    if path.exists():  # candidates measured from another environment (they conflict with spaCy 3.7)
        earlier = json.loads(path.read_text()).get("candidates", {})
        for name, r in earlier.items():
            if r.get("available") and not report["candidates"].get(name, {}).get("available"):
                report["candidates"][name] = {**r, "environment": "other"}
    path.write_text(json.dumps(report, indent=1) + "\n")
    for name, r in report["candidates"].items():
        print(name, f"{r['correct']}/{r['n']}" if r.get("available") else f"unavailable ({r['error']})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
