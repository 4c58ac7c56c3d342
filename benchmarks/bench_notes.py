"""Note NLP rate, cold and cached, in notes/s and words/s.

Reuses benchmarks/bench_nlp.py (the nlp engineer's note bench: `load_notes`, its target
terms) for the pipeline-only figure; adds the production path, `build_index` with notes on
one bundle (lexicon + record-display targets), cold (fresh NotePipeline cache) and cached."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bench_ingest import load_record
from bench_nlp import TERMS, load_notes
from measure import summary, timed
from medeventgraph.core.index.patient_index import build_index
from medeventgraph.core.query.lexicon import load_lexicon
from medeventgraph.model.settings import Settings
from medeventgraph.nlp import NotePipeline

__all__ = ["bench_notes"]


def _rates(t, notes: int, words: int) -> dict[str, Any]:
    med = summary(t.wall)["median"]
    return {"seconds": t.summary(), "notes_per_s": round(notes / med, 1), "words_per_s": round(words / med, 1)}


def bench_notes(data_dir: Path, bundle: Path, repeats: int, *, only_bundle: bool, log=print) -> dict[str, Any]:
    documents = load_notes(data_dir / "synthea")
    record = load_record(bundle.read_bytes())
    if only_bundle:
        own = {d.reference for d in record.documents}
        documents = [d for d in documents if d.reference in own]
    n_notes = sum(len(d.texts) for d in documents)
    words = sum(len(t.text.split()) for d in documents for t in d.texts)
    pipeline = NotePipeline()
    pipeline.mentions(documents[:1], TERMS)  # warm the spaCy pipeline itself

    cold = timed(lambda: pipeline.mentions(documents, TERMS), repeats, setup=pipeline.cache.clear)
    cached = timed(lambda: pipeline.mentions(documents, TERMS), repeats)
    out: dict[str, Any] = {
        "source": "benchmarks/bench_nlp.py load_notes + TERMS",
        "notes": n_notes, "words": words, "mentions": len(cached.result),
        "pipeline_cold": _rates(cold, n_notes, words), "pipeline_cached": _rates(cached, n_notes, words),
    }
    settings = Settings(notes=True)
    load_lexicon()
    b_notes = sum(len(d.texts) for d in record.documents)
    b_words = sum(len(t.text.split()) for d in record.documents for t in d.texts)
    b_cold = timed(lambda: build_index(record, settings, notes=pipeline), repeats, setup=pipeline.cache.clear)
    b_cached = timed(lambda: build_index(record, settings, notes=pipeline), repeats)
    b_plain = timed(lambda: build_index(record, Settings(notes=False)), repeats)
    out["build_index_with_notes"] = {
        "bundle": bundle.name, "notes": b_notes, "words": b_words,
        "note_mentions": sum(1 for o in b_cached.result.occurrences.values() if o.origin.value == "note"),
        "cold": _rates(b_cold, b_notes, b_words), "cached": _rates(b_cached, b_notes, b_words),
        "without_notes_seconds": b_plain.summary(),
    }
    log(f"  notes: pipeline cold {out['pipeline_cold']['words_per_s']:.0f} words/s, cached "
        f"{out['pipeline_cached']['words_per_s']:.0f} words/s; build_index+notes cold "
        f"{b_cold.summary()['median']:.2f} s, cached {b_cached.summary()['median']:.2f} s")
    return out
