"""Text without sentence punctuation costs work linear in its length (structure, not timings):
sentences are capped, ConText compares cues only within a sentence and a target only with the
cues whose scope reaches it. benchmarks/bench_nlp.py measures the times."""

from __future__ import annotations

from medeventgraph.nlp import TargetTerm, context
from medeventgraph.nlp.sentences import MAX_SENTENCE_TOKENS
from medeventgraph.occurrence import Kind

from .conftest import make_note

AKI = TargetTerm("acute kidney injury", "acute kidney injury", Kind.CONDITION, "query")


def test_unpunctuated_text_is_cut_into_capped_sentences(pipeline):
    text = "acute kidney injury " * 1000
    doc = pipeline.nlp(text)
    lengths = [sum(1 for t in s if not t.is_space) for s in doc.sents]
    assert max(lengths) <= MAX_SENTENCE_TOKENS
    assert len(lengths) >= 3000 // MAX_SENTENCE_TOKENS


def test_html_paragraphs_become_capped_sentences(pipeline):
    text = "\n".join(["acute kidney injury"] * 1000)  # what an HTML page of <p> paragraphs strips to
    lengths = [sum(1 for t in s if not t.is_space) for s in pipeline.nlp(text).sents]
    assert max(lengths) <= MAX_SENTENCE_TOKENS


def test_context_work_grows_linearly(pipeline, monkeypatch):
    graphs: list[tuple[int, int]] = []  # (modifiers, targets) of every ConTextGraph built

    class Counting(context.ConTextGraph):
        def __init__(self, targets=None, modifiers=None, **kw):
            graphs.append((len(modifiers or []), len(targets or [])))
            super().__init__(targets=targets, modifiers=modifiers, **kw)

    monkeypatch.setattr(context, "ConTextGraph", Counting)

    def work(repeats: int) -> int:
        graphs.clear()
        text = "no acute kidney injury and " * repeats  # a cue and a target every five words
        found = pipeline.mentions([make_note(text, f"linear-{repeats}")], [AKI])
        assert len(found) == repeats and all(m.assertion.negated for m in found)
        assert max(m for m, _ in graphs) <= MAX_SENTENCE_TOKENS
        return sum(m * max(t, 1) for m, t in graphs)

    small, large = work(500), work(2000)
    assert large <= 5 * small  # quadruple the text, at most ~quadruple the pairs compared
