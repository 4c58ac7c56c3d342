"""Text without sentence punctuation costs work linear in its length (structure, not timings):
sentences are capped, ConText compares cues only within a sentence and a target only with the
cues whose scope reaches it. benchmarks/bench_nlp.py measures the times."""

from __future__ import annotations

from medeventgraph.model.occurrence import Kind
from medeventgraph.nlp import TargetTerm, context
from medeventgraph.nlp.sentences import MAX_SENTENCE_TOKENS

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


class _Counted(tuple):
    """A tuple that counts the elements read from it (by index or by iteration)."""

    reads = 0

    def __getitem__(self, i):
        _Counted.reads += 1
        return super().__getitem__(i)

    def __iter__(self):
        for item in super().__iter__():
            _Counted.reads += 1
            yield item


def test_time_and_section_lookups_per_mention_do_not_scan_the_note(pipeline):
    """Each mention's passage times (timeline.SentenceTimes) and section lookup
    (ProcessedNote.section_at) read a bounded or logarithmic number of sentences and sections:
    a scan of all of them per mention made a long unpunctuated note quadratic."""
    from dataclasses import replace

    from medeventgraph.nlp.processed import SectionTable, SentenceTable
    from medeventgraph.nlp.timeline import SentenceTimes, note_anchors

    def reads(lines: int) -> int:
        titles = ("Chief complaint", "History of present illness")
        text = "\n".join(f"{titles[k % 2]}:\nacute kidney injury" for k in range(lines))
        note = make_note(text, f"lookups-{lines}")
        processed = pipeline.process(note, note.texts[0])
        assert len(processed.sentences) >= lines and len(processed.sections) >= 2
        # the note's own tables (processed.py), their rows counted as they are read
        counted = replace(processed, sentences=SentenceTable(_Counted(processed.sentences.rows)),
                          sections=SectionTable(_Counted(processed.sections.rows)))
        anchors = note_anchors(note, counted.text, None, pipeline.time_finder)
        _Counted.reads = 0
        times = SentenceTimes(counted, anchors, pipeline.time_finder)
        for sentence in processed.sentences:
            times(sentence)
            counted.section_at(sentence.start)
        return _Counted.reads

    small, large = reads(200), reads(800)
    assert large <= 5 * small  # quadruple the sentences: ~4x (n log n), not 16x (n^2)
