"""Benchmark the note pipeline on every Synthea note: splitters, cold vs cached, notes/s and words/s.

    .venv/bin/python benchmarks/bench_nlp.py [--data ../shared/data/synthea] [--runs 5] [--out results/nlp_bench.json]

Measures, each as the median of repeated runs (runs of the two splitters interleaved, so their
ratio comes from the same run conditions):
- sentence splitting alone (medspaCy tokenizer + splitter) with PyRuSH and with the rule
  splitter (spaCy sentencizer + line-break boundaries + sectionizer boundaries), and how far
  their sentences agree;
- the whole `NotePipeline.mentions` over all DocumentReference and DiagnosticReport notes:
  cold (fresh pipeline, empty cache) and cached (same call again: no NLP re-run).
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import time
from pathlib import Path

import medspacy
import spacy
from medeventgraph.fhir_adapters import load_paths
from medeventgraph.nlp import NotePipeline, TargetTerm
from medeventgraph.nlp.sections import add_sectionizer
from medeventgraph.nlp.sentences import add_sentence_splitter
from medeventgraph.occurrence import Kind, NoteDocument

REPO = Path(__file__).resolve().parents[1]
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared" / "data" / "synthea")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--out", type=Path, default=REPO / "results" / "nlp_bench.json")
    args = parser.parse_args()

    documents = load_notes(args.data)
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

    # 2. whole pipeline, cold vs cached
    cold, cached, counts, cold_cpu, cached_cpu = [], [], [], [], []
    for _ in range(max(3, args.runs // 2)):
        pipeline = NotePipeline()
        cold.append(timed(lambda p=pipeline: counts.append(len(p.mentions(documents, TERMS)))))
        cold_cpu.append(CPU[-1])
        cached.append(timed(lambda p=pipeline: p.mentions(documents, TERMS)))
        cached_cpu.append(CPU[-1])
    n_notes = sum(len(d.texts) for d in documents)
    result = {
        "data": str(args.data),
        "notes": n_notes,
        "unique_note_texts": len(unique),
        "words_all_notes": words_all,
        "words_unique_texts": words_unique,
        "runs": args.runs,
        "python": platform.python_version(),
        "spacy": spacy.__version__,
        "medspacy": medspacy.__version__,
        "sentence_splitting_unique_texts": splitters,
        "pipeline_all_notes": {
            "terms": len(TERMS),
            "mentions": counts[0],
            "cold": {"median_seconds": round(statistics.median(cold), 3),
                     "median_cpu_seconds": round(statistics.median(cold_cpu), 3),
                     "notes_per_s": rate(n_notes, statistics.median(cold)),
                     "words_per_s": rate(words_all, statistics.median(cold))},
            "cached": {"median_seconds": round(statistics.median(cached), 3),
                       "median_cpu_seconds": round(statistics.median(cached_cpu), 3),
                       "notes_per_s": rate(n_notes, statistics.median(cached)),
                       "words_per_s": rate(words_all, statistics.median(cached))},
            "cold_over_cached_ratio": round(statistics.median(cold) / statistics.median(cached), 1),
            "note": "cold processes each distinct text once (DiagnosticReport copies share the cache entry)",
        },
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
