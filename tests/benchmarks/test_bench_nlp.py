"""The note NLP bench's fair baseline: vanilla medspaCy with spaCy's sentencizer instead of PyRuSH,
measured in the same run as this pipeline, and the ratio taken against it (never a time)."""

from __future__ import annotations

from types import ModuleType

import pytest


@pytest.fixture(scope="module")
def bench_nlp(benchmarks_on_path) -> ModuleType:
    import bench_nlp

    return bench_nlp


def test_the_fair_baseline_splits_with_spacys_sentencizer(bench_nlp):
    fair = bench_nlp.vanilla_nlp("sentencizer")
    assert fair.pipe_names[0] == "sentencizer" and "medspacy_pyrush" not in fair.pipe_names
    assert {"medspacy_target_matcher", "medspacy_context"} <= set(fair.pipe_names)
    assert "medspacy_pyrush" in bench_nlp.vanilla_nlp("pyrush").pipe_names
    doc = fair("Patient denies chest pain. Started lisinopril for hypertension.")
    assert len(list(doc.sents)) == 2 and [e.text for e in doc.ents] == ["lisinopril", "hypertension"]


def test_throughput_reports_both_vanillas_and_the_ratio_to_the_fair_one(bench_nlp, synthea_dir):
    out = bench_nlp.throughput_section(synthea_dir, 2, None, limit=3)
    fair, current = out["medspacy_sentencizer"], out["current"]
    assert fair["sentences"] == "sentencizer" and out["medspacy_vanilla"]["sentences"] == "pyrush"
    assert fair["runs"] == current["runs"] == 2  # interleaved run by run with the current pipeline
    ratio = out["current_over_medspacy_sentencizer"]
    assert ratio["cold_words_per_s"] == round(current["cold"]["words_per_s"] / fair["cold"]["words_per_s"], 2)
    assert ratio["target_ratio"] == 1.5
    md = bench_nlp.markdown_section(out)
    assert "vanilla medspaCy, spaCy sentencizer" in md and "Current / vanilla medspaCy with spaCy's sentencizer" in md
