"""A processed note holds its sentences, sections and ConText cues as rows of plain values
(nlp/processed.py), so that the notes the cache keeps alive give Python's cyclic GC next to nothing
to walk (issue #19). Checked here against what they replaced: one dataclass per sentence, section
and cue, built as process_doc built them before."""

from __future__ import annotations

import gc
from bisect import bisect_right
from dataclasses import replace
from operator import attrgetter

import pytest
from medeventgraph.nlp.processed import (
    ModifierTable,
    SectionTable,
    SentenceSpan,
    SentenceTable,
    process_doc,
)
from medeventgraph.nlp.sections import doc_sections, sentence_section_flags

from .test_token_arrays import NOTES

MORE = (
    "PLAN:\nThe patient was prescribed the following medications:\n- aspirin\n- heparin\nWill start statin.\n",
    "HISTORY OF PRESENT ILLNESS:\nNo acute kidney injury (AKI) was seen 2 days ago.\nPLAN: Follow up.\n",
    "Family history: mother had breast cancer. Denies chest pain, possible pneumonia.\n\nALLERGIES: CODEINE\n",
)


def _old_sentences(doc) -> tuple[SentenceSpan, ...]:
    """process_doc's sentences before the tables: one SentenceSpan per sentence."""
    sections = doc_sections(doc)
    starts = [s.title_start for s in sections]
    text = doc.text
    out = []
    for sent in doc.sents:
        raw = sent.text
        stripped = raw.strip()
        if not stripped:
            continue
        start = sent.start_char + (len(raw) - len(raw.lstrip()))
        end = start + len(stripped)
        i = bisect_right(starts, start) - 1
        section = sections[i] if i >= 0 else None
        heading = section is not None and section.title_start <= start and end <= section.title_end
        out.append(SentenceSpan(start, end, section.category if section else None, heading))
    flags = sentence_section_flags([(s.section, s.is_heading, text[s.start:s.end]) for s in out])
    return tuple(replace(s, section_flags=f) for s, f in zip(out, flags, strict=True))


def _old_section_at(sections, char: int):
    i = bisect_right(sections, char, key=attrgetter("title_start")) - 1
    return sections[i] if i >= 0 else None


@pytest.mark.parametrize("text", NOTES + MORE)
def test_tables_read_back_what_the_dataclasses_held(pipeline, text):
    doc = pipeline.nlp(text)
    sections = doc_sections(doc)  # before process_doc, which lets go of medspaCy's Section objects
    old_sentences = _old_sentences(doc)
    old_modifiers = pipeline.modifier_finder.find(doc)
    processed = process_doc(doc, pipeline.modifier_finder, pipeline.wordforms)
    assert isinstance(processed.sentences, SentenceTable)
    assert tuple(processed.sentences) == old_sentences
    assert [processed.sentences[i] for i in range(len(old_sentences))] == list(old_sentences)
    assert processed.sentences[1:3] == list(old_sentences[1:3])
    assert tuple(processed.sections) == sections
    assert tuple(processed.modifiers) == old_modifiers
    assert all(a.rule is b.rule for a, b in zip(processed.modifiers, old_modifiers, strict=True))
    # section lookups on the rows, against the bisect over SectionSpans they replaced
    plain = replace(processed, sections=sections)
    for char in range(len(text) + 1):
        assert processed.section_at(char) == _old_section_at(sections, char) == plain.section_at(char)
        for end in (char, char + 1, char + 7):
            assert processed.in_heading(char, end) == plain.in_heading(char, end)
            assert processed.holds_heading(char, end) == plain.holds_heading(char, end)


def test_what_the_cache_keeps_is_not_walked_by_the_gc(pipeline):
    text = MORE[0] + MORE[1] + MORE[2]
    processed = process_doc(pipeline.nlp(text), pipeline.modifier_finder, pipeline.wordforms)
    assert len(processed.sentences) > 5 and len(processed.modifiers) > 2 and len(processed.sections) > 2
    # a tuple of untracked items is untracked by a collection that finds its items untracked first:
    # a young and a middle collection, before anything reaches the oldest generation
    gc.collect()
    gc.collect()
    for table in (processed.sentences, processed.sections, processed.modifiers):
        assert not gc.is_tracked(table.rows)
        assert not any(gc.is_tracked(row) for row in table.rows)
    assert processed.doc._.sections == []  # medspaCy's Section objects are not kept with the note
    # the section flags of every sentence are shared sets, not one per sentence
    flags = [s.section_flags for s in processed.sentences]
    assert len({id(f) for f in flags}) == len(set(flags))


def test_tables_compare_and_round_trip():
    spans = (SentenceSpan(0, 4, None, False), SentenceSpan(5, 9, "plan", True, frozenset({"hypothetical"})))
    table = SentenceTable.of(spans)
    assert tuple(table) == spans and table == SentenceTable.of(list(spans)) and len(table) == 2
    assert hash(table) == hash(SentenceTable.of(spans))
    assert SectionTable.of(()) == SectionTable(()) and list(ModifierTable.of(())) == []
