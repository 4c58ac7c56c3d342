"""Benchmark the note pipeline on every Synthea note: splitters, cold vs cached, notes/s and words/s.

    .venv/bin/python benchmarks/bench_nlp.py [--data ../shared/data/synthea] [--runs 5] [--out results/nlp_bench.json]
                                             [--baseline 2c3e502] [--quick]

Measures, each as the median of repeated runs (runs of the two splitters interleaved, so their
ratio comes from the same run conditions):
- sentence splitting alone (medspaCy tokenizer + splitter) with PyRuSH and with the rule
  splitter (spaCy sentencizer + line-break boundaries + sectionizer boundaries), and how far
  their sentences agree;
- the whole `NotePipeline.mentions` over all DocumentReference and DiagnosticReport notes:
  cold (fresh pipeline, empty cache) and cached (same call again: no NLP re-run);
- the same for the pipeline of the `--baseline` commit (the one before real-text matching, the
  scispacy detector and per-sentence ConText), run from `git archive` of that commit in a
  subprocess on the same notes, and for vanilla medspaCy (`medspacy.load()` with the same
  phrases as TargetRules; it has no cache, so only cold), with words/s ratios to the baseline;
- linear time: unpunctuated text of 20k, 40k and 80k characters ("acute kidney injury "
  repeated, and the same as the paragraphs an HTML page strips to), with the 80k/20k ratio.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import medspacy
import spacy
from medeventgraph.fhir_adapters import load_paths
from medeventgraph.model.occurrence import Kind, NoteDocument
from medeventgraph.nlp import NotePipeline, TargetTerm
from medeventgraph.nlp.sections import add_sectionizer
from medeventgraph.nlp.sentences import add_sentence_splitter

REPO = Path(__file__).resolve().parents[1]
BASELINE = "2c3e502"  # main before the real-text note work (issue #11 items 1, 2, 7; issue #10 linear time)
LINEAR_SIZES = (20_000, 40_000, 80_000)
TERMS = (
    TargetTerm("stress", "stress", Kind.CONDITION, "record"),
    TargetTerm("lisinopril", "lisinopril", Kind.MEDICATION, "query"),
    TargetTerm("cough", "cough", Kind.CONDITION, "lexicon"),
    TargetTerm("myocardial infarction", "myocardial infarction", Kind.CONDITION, "record"),
    TargetTerm("smoking", "tobacco use", Kind.OBSERVATION, "lexicon"),
    TargetTerm("hypertension", "hypertension", Kind.CONDITION, "lexicon"),
    TargetTerm("medication review due", "medication review due", Kind.PROCEDURE, "record"),
    TargetTerm("acute bronchitis", "acute bronchitis", Kind.CONDITION, "query"),
)


def load_notes(folder: Path) -> list[NoteDocument]:
    """DocumentReference and DiagnosticReport.presentedForm texts of every bundle in `folder`,
    decoded by the project's own adapters."""
    bundles = sorted(p for p in folder.glob("*.json") if not p.name.startswith(("hospital", "practitioner")))
    return load_paths(bundles).documents


def splitter_nlp(name: str) -> spacy.Language:
    nlp = medspacy.load(medspacy_enable=["medspacy_tokenizer"])
    add_sentence_splitter(nlp, name)
    add_sectionizer(nlp)
    return nlp


def trimmed_sentences(doc) -> set[tuple[int, int]]:
    out = set()
    for s in doc.sents:
        raw = s.text
        if raw.strip():
            start = s.start_char + len(raw) - len(raw.lstrip())
            out.add((start, start + len(raw.strip())))
    return out


CPU: list[float] = []  # CPU seconds of every timed call, in call order (the machine may be shared)


def timed(fn) -> float:
    t0, c0 = time.perf_counter(), time.process_time()
    fn()
    CPU.append(time.process_time() - c0)
    return time.perf_counter() - t0


def rate(count: int, seconds: float) -> float:
    return round(count / seconds, 1)


def _part(walls: list[float], cpus: list[float], n_notes: int | None, words: int) -> dict:
    out = {"median_seconds": round(statistics.median(walls), 3),
           "median_cpu_seconds": round(statistics.median(cpus), 3),
           "words_per_s": rate(words, statistics.median(walls)),
           "words_per_cpu_s": rate(words, statistics.median(cpus)), "runs": len(walls)}
    if n_notes is not None:
        out["notes_per_s"] = rate(n_notes, statistics.median(walls))
    return out


def pipeline_cold_cached(documents: list[NoteDocument], runs: int, between=None) -> dict:
    """`NotePipeline.mentions` over all notes: cold (fresh pipeline) and cached (same call again).
    `between()`, when given, runs after each repetition (the same-run baselines, interleaved)."""
    cold, cached, counts, cold_cpu, cached_cpu = [], [], [], [], []
    words_all = sum(len(t.text.split()) for d in documents for t in d.texts)
    n_notes = sum(len(d.texts) for d in documents)
    for _ in range(runs):
        pipeline = NotePipeline()
        cold.append(timed(lambda p=pipeline: counts.append(len(p.mentions(documents, TERMS)))))
        cold_cpu.append(CPU[-1])
        cached.append(timed(lambda p=pipeline: p.mentions(documents, TERMS)))
        cached_cpu.append(CPU[-1])
        if between is not None:
            between()
    return {"terms": len(TERMS), "mentions": counts[0], "runs": runs,
            "cold": _part(cold, cold_cpu, n_notes, words_all), "cached": _part(cached, cached_cpu, n_notes, words_all),
            "cold_over_cached_ratio": round(statistics.median(cold) / statistics.median(cached), 1)}


# Vanilla medspaCy, two ways: out of the box (PyRuSH splits sentences) and with spaCy's rule
# sentencizer in PyRuSH's place, the fair baseline: PyRuSH alone costs several times medspaCy's own
# matcher and ConText, so against it any pipeline looks fast (issue #19).
VANILLA = {"sentencizer": "spaCy's sentencizer in place of PyRuSH (the fair baseline)",
           "pyrush": "out of the box: PyRuSH sentence splitting"}


def vanilla_nlp(sentences: str) -> spacy.Language:
    """`medspacy.load()` with the phrases as TargetRules; `sentences`: 'pyrush' (medspaCy's
    default) or 'sentencizer' (spaCy's rule sentencizer instead, same tokenizer, matcher, ConText)."""
    from medspacy.target_matcher import TargetRule

    if sentences == "pyrush":
        nlp = medspacy.load()
    else:
        nlp = medspacy.load(medspacy_enable=["medspacy_tokenizer", "medspacy_target_matcher", "medspacy_context"])
        nlp.add_pipe("sentencizer", first=True)
    nlp.get_pipe("medspacy_target_matcher").add([TargetRule(t.literal, t.concept) for t in TERMS])
    return nlp


class Vanilla:
    """Timed runs of one vanilla medspaCy configuration over the same note texts (no cache:
    every call re-runs the whole pipeline); a fresh pipeline per run, built outside the clock."""

    def __init__(self, documents: list[NoteDocument], sentences: str) -> None:
        from medeventgraph.nlp.sentences import silence_pyrush

        silence_pyrush()  # PyRuSH logs every token at debug level: not the pipeline's work
        self.sentences = sentences
        self.texts = [t.text for d in documents for t in d.texts]
        self.walls: list[float] = []
        self.cpus: list[float] = []
        self.ents: list[int] = []

    def run(self) -> None:
        nlp = vanilla_nlp(self.sentences)
        self.walls.append(timed(lambda: self.ents.append(sum(len(nlp(t).ents) for t in self.texts))))
        self.cpus.append(CPU[-1])

    def result(self) -> dict:
        words = sum(len(t.split()) for t in self.texts)
        return {"sentences": self.sentences, "about": VANILLA[self.sentences], "mentions": self.ents[0],
                "runs": len(self.walls), "cold": _part(self.walls, self.cpus, None, words),
                "note": "no cache: every call re-runs the whole pipeline"}


def vanilla_medspacy(documents: list[NoteDocument], runs: int, sentences: str = "pyrush") -> dict:
    """One vanilla configuration alone (`runs` timed runs)."""
    v = Vanilla(documents, sentences)
    for _ in range(runs):
        v.run()
    return v.result()


def baseline_tree(commit: str, into: Path, extra: tuple[str, ...] = ()) -> Path:
    """The package tree of `commit` (git archive), laid out as the installed `medeventgraph`;
    `extra`: further subpackages (e.g. `cds_hooks`) beside nlp, core and fhir_adapters."""
    src = into / "src"
    src.mkdir()
    subs = ("nlp", "core", "fhir_adapters", *extra)
    archive = subprocess.run(["git", "archive", commit, "plugin", *subs], cwd=REPO,
                             capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(src)], input=archive, check=True)
    root = into / "pkg" / "medeventgraph"
    shutil.copytree(src / "plugin", root)
    for sub in subs:
        shutil.copytree(src / sub, root / sub)
    return into / "pkg"


def baseline_pipeline(commit: str, data: Path, runs: int, limit: int | None) -> dict:
    """`pipeline_cold_cached` for the pipeline of `commit`, in a subprocess importing that tree."""
    with tempfile.TemporaryDirectory() as tmp:
        pkg = baseline_tree(commit, Path(tmp))
        env = {**os.environ, "PYTHONPATH": str(pkg)}
        cmd = [sys.executable, __file__, "--worker", "--data", str(data), "--runs", str(runs)]
        if limit:
            cmd += ["--limit", str(limit)]
        out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True).stdout
    result = json.loads(out.strip().splitlines()[-1])
    result["commit"] = commit
    return result


def linear_texts(size: int) -> dict[str, str]:
    phrase = "acute kidney injury "
    return {"repeated_phrase": (phrase * (size // len(phrase) + 1))[:size],
            "html_paragraphs": ("acute kidney injury\n" * (size // len(phrase) + 1))[:size]}


def linear_time(runs: int, sizes: tuple[int, int, int] = LINEAR_SIZES) -> dict:
    """Seconds per size of unpunctuated text (fresh cache each time) and the largest/smallest
    ratio (sizes 1x, 2x, 4x: 20k/40k/80k characters; a quick run uses a quarter of that)."""
    from medeventgraph.model.occurrence import EventTime, Granularity, NoteText, TimeType

    pipeline = NotePipeline(max_note_chars=max(sizes) + 1, cache_size=0)
    small, middle, large = sizes
    term = [TargetTerm("acute kidney injury", "acute kidney injury", Kind.CONDITION, "query")]
    when = EventTime(start=None, type=TimeType.DOCUMENTATION, granularity=Granularity.UNKNOWN)
    out: dict = {}
    for kind in ("repeated_phrase", "html_paragraphs"):
        seconds = {}
        for size in sizes:
            note = NoteDocument("DocumentReference", f"{kind}-{size}", "Patient/bench", None, when,
                                (NoteText(0, "text/plain", linear_texts(size)[kind]),))
            seconds[size] = statistics.median(timed(lambda n=note: pipeline.mentions([n], term))
                                              for _ in range(runs))
        out[kind] = {"seconds": {str(k): round(v, 3) for k, v in seconds.items()},
                     "ratio_2x": round(seconds[middle] / seconds[small], 2),
                     "ratio_4x": round(seconds[large] / seconds[small], 2)}
    out["sizes"] = list(sizes)
    out["target"] = "4x the characters <= 5x the time (linear: 4x; 80k vs 20k in a full run)"
    return out


def throughput_section(data: Path, runs: int, baseline: str | None, limit: int | None = None) -> dict:
    """Words/s cold and cached: this pipeline, the baseline commit's, vanilla medspaCy (with spaCy's
    sentencizer, interleaved run by run with this pipeline's so their ratio is of the same moments;
    out of the box with PyRuSH, once, for reference); linear time."""
    documents = load_notes(data)[:limit]
    fair = Vanilla(documents, "sentencizer")
    current = pipeline_cold_cached(documents, runs, between=fair.run)
    pyrush = vanilla_medspacy(documents, 1, "pyrush")
    sentencizer = fair.result()
    out: dict = {"notes": sum(len(d.texts) for d in documents),
                 "words": sum(len(t.text.split()) for d in documents for t in d.texts),
                 "current": current, "medspacy_sentencizer": sentencizer, "medspacy_vanilla": pyrush}
    out["current_over_medspacy_sentencizer"] = {
        "cold_words_per_s": round(current["cold"]["words_per_s"] / sentencizer["cold"]["words_per_s"], 2),
        "cold_words_per_cpu_s": round(current["cold"]["words_per_cpu_s"] / sentencizer["cold"]["words_per_cpu_s"], 2),
        "cached_words_per_s": round(current["cached"]["words_per_s"] / sentencizer["cold"]["words_per_s"], 2),
        "target": "cold words/s >= 1.5 x vanilla medspaCy with spaCy's sentencizer, same run (issue #19)",
        "target_ratio": 1.5}
    out["current_over_medspacy_pyrush_cold_words_per_s"] = round(
        current["cold"]["words_per_s"] / pyrush["cold"]["words_per_s"], 2)
    if baseline:
        base = baseline_pipeline(baseline, data, runs, limit)
        out["baseline"] = base
        out["current_over_baseline_words_per_s"] = {
            part: round(current[part]["words_per_s"] / base[part]["words_per_s"], 3) for part in ("cold", "cached")}
        out["current_over_baseline_words_per_cpu_s"] = {
            part: round(current[part]["words_per_cpu_s"] / base[part]["words_per_cpu_s"], 3)
            for part in ("cold", "cached")}
        out["target"] = "current >= 0.75 x baseline words/s (no more than 25 % slower)"
    sizes = LINEAR_SIZES if limit is None else tuple(size // 4 for size in LINEAR_SIZES)
    out["linear_time"] = linear_time(max(1, runs // 2), sizes)
    return out


def markdown_section(nlp: dict) -> str:
    """The BENCH.md section for `throughput_section`'s result."""
    lines = ["## Note NLP throughput (`benchmarks/bench_nlp.py`)", "",
             (f"{nlp['notes']} Synthea notes, {nlp['words']} words, {len(TERMS)} target phrases; median wall "
              "clock over runs (CPU beside it: the machine is shared). Baseline = the pipeline of commit "
              f"{nlp.get('baseline', {}).get('commit', '-')} run from `git archive` in the same run. Vanilla "
              "medspaCy = `medspacy.load()` with the phrases as TargetRules (no cache, so cold only): with "
              "spaCy's sentencizer in place of PyRuSH (the fair baseline; its runs alternate with the current "
              "pipeline's), and out of the box with PyRuSH (one run, for reference)."), "",
             "| pipeline | runs | cold words/s | cold words/CPU-s | cached words/s | cached words/CPU-s |",
             "|---|---|---|---|---|---|"]
    names = {"current": "current", "baseline": "baseline commit",
             "medspacy_sentencizer": "vanilla medspaCy, spaCy sentencizer", "medspacy_vanilla": "vanilla medspaCy, PyRuSH"}
    for name, title in names.items():
        r = nlp.get(name)
        if r is None:
            continue
        cached = r.get("cached", {})
        cw, cc = cached.get("words_per_s"), cached.get("words_per_cpu_s")
        lines.append(f"| {title} | {r['cold'].get('runs', r.get('runs', '-'))} | {r['cold']['words_per_s']:.0f} | "
                     f"{r['cold']['words_per_cpu_s']:.0f} | {'-' if cw is None else f'{cw:.0f}'} | "
                     f"{'-' if cc is None else f'{cc:.0f}'} |")
    fair = nlp.get("current_over_medspacy_sentencizer")
    if fair:
        lines += ["", (f"Current / vanilla medspaCy with spaCy's sentencizer, cold words/s: **{fair['cold_words_per_s']}x** "
                       f"(CPU {fair['cold_words_per_cpu_s']}x; cached current against it {fair['cached_words_per_s']}x); "
                       f"target {fair['target']}. Against PyRuSH out of the box: "
                       f"{nlp['current_over_medspacy_pyrush_cold_words_per_s']}x.")]
    if "current_over_baseline_words_per_s" in nlp:
        w, c = nlp["current_over_baseline_words_per_s"], nlp["current_over_baseline_words_per_cpu_s"]
        lines += ["", (f"Current / baseline words/s: cold {w['cold']} (CPU {c['cold']}), cached {w['cached']} "
                  f"(CPU {c['cached']}); target {nlp['target']}.")]
    lin = nlp["linear_time"]
    a, b, c = (str(x) for x in lin["sizes"])
    lines += ["", "Unpunctuated text (seconds; target " + lin["target"] + "):", "",
              f"| text | {a} chars | {b} chars | {c} chars | 4x / 1x |", "|---|---|---|---|---|"]
    for kind in ("repeated_phrase", "html_paragraphs"):
        sec = lin[kind]["seconds"]
        lines.append(f"| {kind} | {sec[a]} | {sec[b]} | {sec[c]} | {lin[kind]['ratio_4x']} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared" / "data" / "synthea")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--out", type=Path, default=REPO / "results" / "nlp_bench.json")
    parser.add_argument("--baseline", default=BASELINE, help="commit whose pipeline is the baseline ('' for none)")
    parser.add_argument("--quick", action="store_true", help="smoke: 40 notes, 1 run")
    parser.add_argument("--limit", type=int, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)  # baseline subprocess
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(pipeline_cold_cached(load_notes(args.data)[:args.limit], args.runs)))
        return
    if args.quick:
        args.runs, args.limit = 1, 40

    documents = load_notes(args.data)[:args.limit]
    unique = list(dict.fromkeys(t.text for d in documents for t in d.texts))
    words_unique = sum(len(t.split()) for t in unique)
    words_all = sum(len(t.text.split()) for d in documents for t in d.texts)

    # 1. sentence splitting alone, interleaved runs
    nlps = {name: splitter_nlp(name) for name in ("rule", "pyrush")}
    for nlp in nlps.values():  # warm-up
        nlp(unique[0])
    split_times: dict[str, list[float]] = {name: [] for name in nlps}
    ratios = []
    split_cpu: dict[str, list[float]] = {name: [] for name in nlps}
    for _ in range(args.runs):
        run = {}
        for name, nlp in nlps.items():
            run[name] = timed(lambda nlp=nlp: [nlp(t) for t in unique])
            split_cpu[name].append(CPU[-1])
        for name, seconds in run.items():
            split_times[name].append(seconds)
        ratios.append(run["pyrush"] / run["rule"])
    docs = {name: [nlp(t) for t in unique] for name, nlp in nlps.items()}
    rule_sents = [trimmed_sentences(d) for d in docs["rule"]]
    rush_sents = [trimmed_sentences(d) for d in docs["pyrush"]]
    same = sum(len(a & b) for a, b in zip(rule_sents, rush_sents, strict=True))
    n_rule, n_rush = sum(map(len, rule_sents)), sum(map(len, rush_sents))

    def crossing_lines(doc_sents, texts) -> int:  # sentences running across a blank line or a heading
        return sum(1 for sents, text in zip(doc_sents, texts, strict=True) for s, e in sents
                   if "\n\n" in text[s:e] or "\n#" in text[s:e])

    splitters = {
        name: {
            "median_seconds": round(statistics.median(ts), 3),
            "median_cpu_seconds": round(statistics.median(split_cpu[name]), 3),
            "notes_per_s": rate(len(unique), statistics.median(ts)),
            "notes_per_cpu_s": rate(len(unique), statistics.median(split_cpu[name])),
            "words_per_s": rate(words_unique, statistics.median(ts)),
        }
        for name, ts in split_times.items()
    }
    splitters["pyrush_over_rule_time_ratio_median"] = round(statistics.median(ratios), 2)
    splitters["agreement"] = {
        "rule_sentences": n_rule,
        "pyrush_sentences": n_rush,
        "identical_spans": same,
        "share_of_rule_identical": round(same / n_rule, 4),
        "share_of_pyrush_identical": round(same / n_rush, 4),
        "rule_crossing_blank_line_or_heading": crossing_lines(rule_sents, unique),
        "pyrush_crossing_blank_line_or_heading": crossing_lines(rush_sents, unique),
    }

    # 2. whole pipeline, cold vs cached; baseline commit and vanilla medspaCy; linear time
    n_notes = sum(len(d.texts) for d in documents)
    result = {
        "data": str(args.data),
        "notes": n_notes,
        "unique_note_texts": len(unique),
        "words_all_notes": words_all,
        "words_unique_texts": words_unique,
        "runs": args.runs,
        "quick": args.quick,
        "python": platform.python_version(),
        "spacy": spacy.__version__,
        "medspacy": medspacy.__version__,
        "sentence_splitting_unique_texts": splitters,
        "throughput_all_notes": throughput_section(args.data, max(1, args.runs // 2 + 1), args.baseline or None,
                                                   args.limit),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    args.out.with_name("NLP_BENCH.md").write_text(markdown_section(result["throughput_all_notes"]))
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
