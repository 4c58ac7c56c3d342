"""EVAL.md lines for N1 (the labelled MTSamples questions) from its eval.json entry alone."""

from __future__ import annotations

from typing import Any

__all__ = ["section"]

_WORDS = {"ba": "BA", "fsr": "FSR", "sup_recall": "supported recall", "events_found": "events found"}


def _pct(x: float | None) -> str:
    return "n/a" if x is None else f"{100 * x:.1f}"


def _counts(d: dict[str, int]) -> str:
    return ", ".join(f"{k} {v}" for k, v in d.items()) or "-"


def _goal_line(res: dict[str, Any]) -> str:
    check = res["splits"].get("check")
    if check is None:
        return "Goals (issue #19, on `check`): not measured in this run (no `check` questions)."
    cells = []
    for key, goal in res["goals"].items():
        value = check.get(key)
        if value is None:
            cells.append(f"{_WORDS[key]} {goal['op']} {goal['value']:g}: n/a")
            continue
        met = 100 * value >= goal["value"] if goal["op"] == ">=" else 100 * value <= goal["value"]
        cells.append(f"{_WORDS[key]} {goal['op']} {goal['value']:g}: {_pct(value)} ({'met' if met else 'not met'})")
    return "Goals (issue #19, on `check`; reported, not tuned to): " + "; ".join(cells) + "."


def section(name: str, res: dict[str, Any]) -> list[str]:
    a = res["all"]
    L = [f"## {name}: {res['title']}", "",
         (f"Data `{res['data']}` (README.md and GUIDE.md there): {a['n']} questions over {res['reports']} "
          "reports, each labelled from the report and judged again blind by a second independent reading "
          "(only agreed labels kept). `train` is for development; `check` is for an honest figure. B6 as "
          "shipped (default settings, the note pipeline reading each report's one note). BA = mean of recall "
          "on supported and on not (any verdict other than supported counts as not, an error row too); FSR = "
          "share of not answered supported; events found = share of supported questions whose every named "
          "event the core's own grounding (`ground_all`, as the verifier calls it) finds at least once."), "",
         ("| split | reports | questions (supported / not) | error rows | BA | FSR | supported recall | "
         "events found | verdicts | ms/question |"),
         "|---|---|---|---|---|---|---|---|---|---|"]
    for split, s in res["splits"].items():
        L.append(f"| {split} | {s['reports']} | {s['n']} ({s['supported']} / {s['not']}) | {s['errors']} | "
                 f"{_pct(s['ba'])} | {_pct(s['fsr'])} | {_pct(s['sup_recall'])} | {_pct(s['events_found'])} "
                 f"({s['events_found_count']}/{s['supported']}) | {_counts(s['verdicts'])} | "
                 f"{s['ms_per_question'] if s['ms_per_question'] is not None else 'n/a'} |")
    L += ["", _goal_line(res), ""]
    errors = [r for r in res["rows"] if r["error"] is not None]
    if errors:
        L += [f"Error rows (asked of nothing, scored as not supported): {len(errors)}; "
              + "; ".join(f"`{r['id']}`: {r['error']}" for r in errors[:10])
              + ("; ..." if len(errors) > 10 else "") + ".", ""]
    L += [("Per reason below: recall = share answered as labelled (supported for a supported reason, anything "
          "else for a not reason); failures = the failure types of the answers that were not supported."), ""]
    for split, s in res["splits"].items():
        L += [f"### {name} per reason, `{split}`", "",
              "| gold | reason | n | recall | verdicts | failures |", "|---|---|---|---|---|---|"]
        L += [f"| {r['gold']} | {r['reason']} | {r['n']} | {_pct(r['recall'])} | {_counts(r['verdicts'])} | "
              f"{_counts(r['failures'])} |" for r in s["by_reason"]]
        L.append("")
    return L
