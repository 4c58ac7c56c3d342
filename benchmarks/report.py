"""bench.json -> BENCH.md with tables and PNG plots (matplotlib, Agg backend)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
from measure import REPO

__all__ = ["targets", "write_report"]

CHANGES = Path(__file__).with_name("perf_changes.md")
# Cold hook calls (a record the service has not seen, notes read): the verify hook answers one
# question and is held to 1 s (issue #19); patient-view runs the whole watch list.
COLD_LIMIT_SECONDS = {"medeventgraph-verify": 1.0, "patient-view": 1.5}


def _lexical_note(rows) -> str:
    """The BM25 index is built on first use; say what building it too costs, never hide it."""
    with_lex = [b["build_with_lexical"]["ratio_to_parse"] for b in rows if "build_with_lexical" in b]
    if not with_lex:
        return ""
    ok = sum(x <= 4 for x in with_lex)
    return f"; with the lexical index (built on first search) also timed: {ok}/{len(with_lex)}, worst x{max(with_lex)}"


def _lexical_cell(b) -> str:
    x = b.get("build_with_lexical")
    return f"{_ms(x['seconds']['median'])} (x{x['ratio_to_parse']})" if x else "n/a"


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:.1f}"


def _range_ms(s: dict[str, Any]) -> str:
    return f"{_ms(s['median'])} ({_ms(s['min'])}–{_ms(s['max'])})"


def targets(r: dict[str, Any]) -> list[dict[str, Any]]:
    """Each target: what it asks, the measured figure, met or not (None: not measured)."""
    out: list[dict[str, Any]] = []
    if "ingest" in r:
        worst = max(r["ingest"], key=lambda b: b["build"]["ratio_to_parse"])
        n_ok = sum(b["build"]["ratio_to_parse"] <= 4 for b in r["ingest"])
        out.append({"target": "graph + context build (notes off) ≤ 4x orjson parse, per bundle",
                    "measured": f"{n_ok}/{len(r['ingest'])} bundles (median); worst x{worst['build']['ratio_to_parse']} "
                                f"({worst['bundle'][:24]}…, {worst['mb']:.2f} MB); best-vs-best "
                                f"{sum(b['build'].get('ratio_to_parse_min', 99) <= 4 for b in r['ingest'])}"
                                f"/{len(r['ingest'])}; bundles ≥ 1 MB: worst x"
                                f"{max((b['build']['ratio_to_parse'] for b in r['ingest'] if b['mb'] >= 1), default=0)}"
                                + _lexical_note(r["ingest"]),
                    "met": n_ok == len(r["ingest"])})
    fair = r.get("nlp", {}).get("current_over_medspacy_sentencizer")
    if fair:
        out.append({"target": "note NLP cold words/s ≥ 1.5x vanilla medspaCy with spaCy's sentencizer (same run)",
                    "measured": f"x{fair['cold_words_per_s']} (CPU x{fair['cold_words_per_cpu_s']}; against PyRuSH "
                                f"out of the box x{r['nlp']['current_over_medspacy_pyrush_cold_words_per_s']})",
                    "met": fair["cold_words_per_s"] >= fair["target_ratio"]})
    if "hook" in r:
        h = r["hook"]
        for hook in ("medeventgraph-verify", "patient-view"):
            cold = h[hook]["cold_seconds"]
            notes = h[hook]["index"].get("note_nlp_in_hook")
            limit = COLD_LIMIT_SECONDS[hook]
            out.append({"target": f"cold {hook} call ({h['bundle'][:12]}…), notes included, < {limit:g} s",
                        "measured": f"median {cold['median']:.3f} s, max {cold['max']:.3f} s "
                                    f"(process CPU median {h[hook]['cold_cpu_seconds']['median']:.3f} s)"
                                    f"{'' if notes else ' — the service ran no note NLP'}",
                        "met": cold["median"] < limit and bool(notes)})
            warm = h[hook]["warm_seconds"]
            out.append({"target": f"warm {hook} call p95 < 150 ms",
                        "measured": f"p95 {_ms(warm['p95'])} ms (median {_ms(warm['median'])} ms; CPU p95 "
                                    f"{_ms(h[hook]['warm_cpu_seconds']['p95'])} ms)",
                        "met": warm["p95"] < 0.150})
    if "query" in r:
        for label in ("notes_off", "notes_on"):
            pw = r["query"][label]["pairwise"]["warm_seconds"]
            cpu = r["query"][label]["pairwise"]["warm_cpu_seconds"]
            out.append({"target": f"warm pairwise query p95 < 50 ms ({label.replace('_', ' ')})",
                        "measured": f"p95 {_ms(pw['p95'])} ms (median {_ms(pw['median'])} ms; CPU p95 "
                                    f"{_ms(cpu['p95'])} ms)", "met": pw["p95"] < 0.050})
    if "growth" in r:
        last = r["growth"]["rows"][-1]
        ratios = last["ratio_to_1x"]
        worst = max(("ingest", "build", "pairwise", "compositional", "hidden"), key=lambda k: ratios[k])
        out.append({"target": f"near-linear growth: {last['factor']}x record ≤ {last['factor'] * 10 // 8}x time",
                    "measured": ", ".join(f"{k} x{ratios[k]}" for k in ("ingest", "build", "pairwise",
                                                                         "compositional", "hidden", "peak_memory")),
                    "met": ratios[worst] <= last["factor"] * 10 / 8})
    return out


def _plots(r: dict[str, Any], out: Path) -> list[str]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    files = []
    if "ingest" in r:
        rows = r["ingest"]
        fig, ax = plt.subplots(figsize=(9, 4))
        names = [b["bundle"].split("_")[0][:12] for b in rows]
        x = range(len(rows))
        for i, (key, label) in enumerate((("ingest", "adapter ingest (incl. parse)"),
                                          ("build", "graph + store build"),
                                          ("ingest_and_build", "ingest + build"))):
            vals = [b[key]["ratio_to_parse"] for b in rows]
            ax.bar([j + (i - 1) * 0.27 for j in x], vals, width=0.27, label=label)
        ax.axhline(4, color="k", ls="--", lw=1, label="target for build: 4x")
        ax.set_xticks(list(x), names, rotation=45, ha="right")
        ax.set_ylabel("time / orjson parse time")
        ax.set_title("Ingest and build cost relative to the parse floor (median)")
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(out / "bench_ingest.png", dpi=110)
        plt.close(fig)
        files.append("bench_ingest.png")
    if "growth" in r:
        rows = r["growth"]["rows"]
        f = [row["factor"] for row in rows]
        fig, (ax, ax2) = plt.subplots(1, 2, figsize=(10, 4))
        for key, label in (("parse", "parse"), ("ingest", "ingest"), ("build", "build"),
                           ("pairwise", "pairwise query"), ("compositional", "compositional query"),
                           ("hidden", "hidden query")):
            ax.plot(f, [row["ratio_to_1x"][key] for row in rows], marker="o", label=label)
        ax.plot(f, f, color="k", ls="--", lw=1, label="linear")
        ax.plot(f, [x * 10 / 8 for x in f], color="r", ls=":", lw=1, label="limit (10x at 8x)")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log", base=2)
        ax.set_xlabel("record size (copies of the history)")
        ax.set_ylabel("median time / time at 1x")
        ax.set_title("Growth")
        ax.legend(fontsize=7)
        ax2.plot(f, [row["peak_memory_mb"] for row in rows], marker="o", label="peak during ingest+build")
        ax2.plot(f, [row["index_memory_mb"] for row in rows], marker="o", label="held by the built index")
        ax2.set_xlabel("record size (copies)")
        ax2.set_ylabel("MB (tracemalloc)")
        ax2.set_title("Memory per patient")
        ax2.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(out / "bench_growth.png", dpi=110)
        plt.close(fig)
        files.append("bench_growth.png")
    if "query" in r or "hook" in r:
        labels, p50, p95 = [], [], []
        for label in ("notes_off", "notes_on"):
            for qtype in ("pairwise", "compositional", "hidden"):
                if "query" in r:
                    w = r["query"][label][qtype]["warm_seconds"]
                    labels.append(f"{qtype}\n{label}")
                    p50.append(w["median"] * 1e3)
                    p95.append(w["p95"] * 1e3)
        if "hook" in r:
            for hook in ("medeventgraph-verify", "patient-view"):
                for state in ("warm", "cold"):
                    w = r["hook"][hook][f"{state}_seconds"]
                    labels.append(f"{hook.split('-')[-1]} hook\n{state}")
                    p50.append(w["median"] * 1e3)
                    p95.append(w["p95"] * 1e3)
        fig, ax = plt.subplots(figsize=(11, 4))
        x = range(len(labels))
        ax.bar([i - 0.2 for i in x], p50, width=0.4, label="median")
        ax.bar([i + 0.2 for i in x], p95, width=0.4, label="p95")
        ax.set_yscale("log")
        ax.set_xticks(list(x), labels, fontsize=7)
        ax.set_ylabel("ms (log)")
        ax.set_title("Verification latency: queries (index warm) and CDS Hooks over loopback HTTP")
        ax.legend()
        fig.tight_layout()
        fig.savefig(out / "bench_latency.png", dpi=110)
        plt.close(fig)
        files.append("bench_latency.png")
    return files


def _origins(r: dict[str, Any]) -> list[str]:
    """Where each section comes from when a run measured only some (`run_bench.py --merge`)."""
    origin = r.get("section_environment")
    if not origin:
        return []
    by: dict[str, list[str]] = {}
    for section, env in origin.items():
        by.setdefault(f"commit {env['commit']}, {env['date']}, load average at start {env['load_average_at_start']}",
                      []).append(section)
    return [("Sections by the run that measured them (this run measured "
             f"{', '.join(r.get('merged_sections_measured', []))}): "
             + "; ".join(f"{', '.join(secs)}: {where}" for where, secs in by.items()) + "."), ""]


def _md(r: dict[str, Any], files: list[str]) -> str:
    env = r["environment"]
    L = ["# MedEventGraph benchmark", "",
         (f"`{'.venv/bin/python benchmarks/run_bench.py' + (' --quick' if r['quick'] else '')}` — "
         f"commit {env['commit']}, {env['date']}, Python {env['python']}, {env['cpus']} CPUs, "
         f"load average at start {env['load_average_at_start']}; {r['repeats']} repeats; "
         f"{r.get('elapsed_seconds', '?')} s in all."), "",
         *_origins(r),
         ("Every time is wall clock (`perf_counter`), median over repeats with (min–max); a full GC runs "
         "before each timed repeat. This machine is shared with other work, so single figures can be "
         "noisy; ratios are taken within one run."), "", "## Targets", "",
         "| target | measured | met |", "|---|---|---|"]
    for t in targets(r):
        L.append(f"| {t['target']} | {t['measured']} | {'yes' if t['met'] else '**no**'} |")
    if "ingest" in r:
        L += ["", "## Ingest (notes off)", "",
              ("Parse = `orjson.loads` of the file (the floor); ingest = `ingest_json` from bytes (parse + "
              "adapters); build = `build_index` from the ingested record (graph + context store, "
              "`settings.notes=False`); the tantivy BM25 index is built on first search, so it is "
              "timed apart as build + lexical index. Ratios are to the parse median."), "",
              ("| bundle | MB | resources | occurrences | parse ms | ingest ms (x) | build ms (x) | "
              "build + lexical index ms (x) | "
              "ingest+build ms (x) | build x best-vs-best | build x CPU | ingest res/s | ingest MB/s | build res/s |"),
              "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
        for b in r["ingest"]:
            L.append(f"| {b['bundle'][:28]} | {b['mb']:.2f} | {b['resources']} | {b['occurrences']} | "
                     f"{_range_ms(b['parse']['seconds'])} | {_ms(b['ingest']['seconds']['median'])} "
                     f"(x{b['ingest']['ratio_to_parse']}) | {_ms(b['build']['seconds']['median'])} "
                     f"(x{b['build']['ratio_to_parse']}) | {_lexical_cell(b)} | "
                     f"{_ms(b['ingest_and_build']['seconds']['median'])} "
                     f"(x{b['ingest_and_build']['ratio_to_parse']}) | x{b['build'].get('ratio_to_parse_min')} | "
                     f"x{b['build'].get('ratio_to_parse_cpu')} | {b['ingest']['resources_per_s']:.0f} | "
                     f"{b['ingest']['mb_per_s']:.1f} | {b['build']['resources_per_s']:.0f} |")
    if "notes" in r:
        n = r["notes"]
        b = n["build_index_with_notes"]
        L += ["", "## Note NLP", "",
              ("Pipeline figures use `benchmarks/bench_nlp.py` (`load_notes` and its target "
              "terms) over the notes of the shared Synthea data; cold = empty note cache, cached = same call "
              "again. The production figure is `build_index` with notes (lexicon + record-display targets)."),
              "",
              "| what | notes | words | cold s | cold notes/s | cold words/s | cached s | cached words/s |",
              "|---|---|---|---|---|---|---|---|",
              (f"| NotePipeline.mentions | {n['notes']} | {n['words']} | {n['pipeline_cold']['seconds']['median']:.3f} "
              f"| {n['pipeline_cold']['notes_per_s']:.0f} | {n['pipeline_cold']['words_per_s']:.0f} | "
              f"{n['pipeline_cached']['seconds']['median']:.3f} | {n['pipeline_cached']['words_per_s']:.0f} |"),
              (f"| build_index + notes ({b['bundle'][:20]}) | {b['notes']} | {b['words']} | "
              f"{b['cold']['seconds']['median']:.3f} | {b['cold']['notes_per_s']:.0f} | "
              f"{b['cold']['words_per_s']:.0f} | {b['cached']['seconds']['median']:.3f} | "
              f"{b['cached']['words_per_s']:.0f} |"), "",
              (f"build_index without notes on the same bundle: {b['without_notes_seconds']['median']:.3f} s; "
              f"{b['note_mentions']} note mentions.")]
    if "query" in r:
        q = r["query"]
        L += ["", f"## Queries (index warm, {q['bundle'][:28]})", "",
              ("Queries are made from the patient's own most frequent condition/medication/lab/procedure "
              "plus lexicon terms (benchmarks/queries.py); the first call of each query (which matches "
              "its words in notes) is reported apart."), "",
              "| index | type | n | median ms | p95 ms | max ms | CPU p95 ms | first call median ms | verdicts |",
              "|---|---|---|---|---|---|---|---|---|"]
        for label in ("notes_off", "notes_on"):
            for qtype in ("pairwise", "compositional", "hidden"):
                v = q[label][qtype]
                w = v["warm_seconds"]
                verdicts = ", ".join(sorted(set(v["verdicts"].values())))
                cpu = v.get("warm_cpu_seconds", {}).get("p95", float("nan"))
                L.append(f"| {label} | {qtype} | {w['n']} | {_ms(w['median'])} | {_ms(w['p95'])} | "
                         f"{_ms(w['max'])} | {_ms(cpu)} | {_ms(v['first_call_seconds']['median'])} | {verdicts} |")
    if "hook" in r:
        h = r["hook"]
        L += ["", f"## CDS Hooks over loopback HTTP ({h['bundle'][:28]}, request {h['request_mb']} MB)", "",
              ("uvicorn started by the bench on a free 127.0.0.1 port, JWT checks off; cold = a record the "
              "service has not seen (fresh content hash and note texts), warm = the same request again. " +
              _first_call(h)),
              "", "| hook | state | n | median ms | p95 ms | min–max ms | CPU median ms | index |",
              "|---|---|---|---|---|---|---|---|"]
        for hook in ("medeventgraph-verify", "patient-view"):
            for state in ("cold", "warm"):
                w = h[hook][f"{state}_seconds"]
                facts = h[hook]["index"]
                cpu = h[hook].get(f"{state}_cpu_seconds", {}).get("median", float("nan"))
                L.append(f"| {hook} | {state} | {w['n']} | {_ms(w['median'])} | {_ms(w['p95'])} | "
                         f"{_ms(w['min'])}–{_ms(w['max'])} | {_ms(cpu)} | {facts.get('occurrences')} occurrences, "
                         f"{facts.get('note_mentions')} note mentions |")
        if "gc_threshold" in h:
            g, c = h["gc_threshold"], h["gc_threshold"]["cold_seconds"]
            L += ["", (f"The serving process raises the collector's young-generation threshold to "
                       f"{g['serving_threshold']} (Python's default {g['default_threshold']}). Cold verify calls in "
                       f"fresh services, {g['processes_per_side']} processes a side, alternating: median "
                       f"{_ms(c['serving']['median'])} ms ({c['serving']['n']} calls) against "
                       f"{_ms(c['default']['median'])} ms at the default ({c['default']['n']} calls); "
                       f"default / serving x{g['default_over_serving']}.")]
    if "growth" in r:
        g = r["growth"]
        L += ["", f"## Growth ({g['bundle'][:28]} replicated)", "",
              ("Copies are shifted later by the record's span, with fresh ids and references rewritten. "
              "Memory is tracemalloc: peak while ingesting + building, and what the built index holds."), "",
              ("| factor | MB | resources | occurrences | parse ms | ingest ms | build ms | pairwise p50 ms | "
              "compositional p50 ms | hidden p50 ms | peak MB | index MB | ratios to 1x (ingest/build/pairwise) |"),
              "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
        for row in g["rows"]:
            q = row["query_warm_seconds"]
            rt = row["ratio_to_1x"]
            L.append(f"| {row['factor']}x | {row['mb']:.1f} | {row['resources']} | {row['occurrences']} | "
                     f"{_ms(row['parse_seconds']['median'])} | {_ms(row['ingest_seconds']['median'])} | "
                     f"{_ms(row['build_seconds']['median'])} | {_ms(q['pairwise']['median'])} | "
                     f"{_ms(q['compositional']['median'])} | {_ms(q['hidden']['median'])} | "
                     f"{row['peak_memory_mb']} | {row['index_memory_mb']} | "
                     f"{rt['ingest']} / {rt['build']} / {rt['pairwise']} |")
    if files:
        L += ["", "## Plots", ""] + [f"![{f}]({f})" for f in files]
    if CHANGES.exists():
        L += ["", CHANGES.read_text().strip()]
    return "\n".join(L) + "\n"


def write_report(result: dict[str, Any], out: Path) -> None:
    files = _plots(result, out)
    text = _md(result, files)
    if "nlp" in result:
        from bench_nlp import markdown_section

        text = text.rstrip("\n") + "\n\n" + markdown_section(result["nlp"])
    if "hook_profile" in result:
        from profile_hook import markdown as hook_profile_md

        text = text.rstrip("\n") + "\n\n" + hook_profile_md(result["hook_profile"])
    (out / "BENCH.md").write_text(text)


if __name__ == "__main__":
    res = REPO / "results"
    write_report(orjson.loads((res / "bench.json").read_bytes()), res)


def _first_call(h: dict) -> str:
    """Results written before the service warmed at start-up have no start_up_seconds: their
    first call paid the imports and the pipeline's set-up."""
    if "start_up_seconds" not in h:
        return f"First call after start (imports, pipeline set-up): {h['first_call_after_start_seconds']:.2f} s."
    return (f"Start-up, warming the core's imports and the note pipeline before the socket accepts: "
            f"{h['start_up_seconds']:.2f} s; first call after start, a cold record: "
            f"{h['first_call_after_start_seconds']:.2f} s.")
