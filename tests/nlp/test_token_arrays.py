"""The note pipeline's per-token passes read spaCy's arrays instead of making a Token per index:
each is checked here against the token walk it replaced, on notes written for these tests."""

from __future__ import annotations

import pytest
from medeventgraph.nlp.context import _sentence_starts
from medeventgraph.nlp.doc_text import doc_text
from medeventgraph.nlp.processed import process_doc
from medeventgraph.nlp.sentences import MAX_SENTENCE_TOKENS, _any_longer, _cap_sentences, _line_starts
from medeventgraph.nlp.values import doc_values
from medeventgraph.nlp.wordforms import JOINERS
from spacy.tokens import Doc

NOTES = (
    "",
    "   ",
    "Chest pain.",
    "CHIEF COMPLAINT:\nShortness of breath.\n\n   \nDenies  fever   or chills.\nPLAN: start  heparin.\n",
    "She was negative   for\n  pneumonia. No\n evidence of DVT.\t\tDischarged home.",
    "- metformin 500 mg\n- lisinopril 10 mg\n\n\nASSESSMENT:  No acute distress.",
    "word " * 400,  # one run-on sentence past the cap
)


def _walked_starts(doc: Doc) -> list[int]:
    out, current = [0] * len(doc), 0
    for token in doc:
        if token.is_sent_start:
            current = token.i
        out[token.i] = current
    return out


def _walked_longer(doc: Doc, max_tokens: int) -> bool:
    count = 0
    for token in doc:
        if token.i > 0 and token.is_sent_start:
            count = 0
        if not token.is_space:
            count += 1
            if count > max_tokens:
                return True
    return False


@pytest.mark.parametrize("text", NOTES)
def test_sentence_starts_are_those_of_the_token_walk(pipeline, text):
    doc = pipeline.nlp(text)
    assert _sentence_starts(doc) == _walked_starts(doc)


@pytest.mark.parametrize("text", NOTES)
def test_token_sentence_maps_every_word_to_the_sentence_holding_it(pipeline, text):
    processed = process_doc(pipeline.nlp(text), pipeline.modifier_finder, pipeline.wordforms)
    assert len(processed.token_sentence) == len(processed.doc)
    for token, index in zip(processed.doc, processed.token_sentence, strict=True):
        if token.is_space:
            assert index == -1
        else:
            sentence = processed.sentences[index]
            assert sentence.start <= token.idx and token.idx + len(token) <= sentence.end


@pytest.mark.parametrize("text", NOTES)
def test_cues_are_matched_as_on_the_doc_without_white_space(pipeline, text):
    doc = pipeline.nlp(text)
    finder = pipeline.modifier_finder
    kept = [t.i for t in doc if not t.is_space]
    compact = Doc(doc.vocab, words=[doc[i].text for i in kept], spaces=[bool(doc[i].whitespace_) for i in kept],
                  sent_starts=[bool(doc[i].is_sent_start) for i in kept])
    expected = [(m, kept[s], kept[e - 1] + 1) for m, s, e in finder._matcher(compact)]
    assert finder._cue_matches(doc) == (expected if len(kept) < len(doc) else finder._matcher(doc))


def test_a_cue_split_by_runs_of_white_space_is_still_found(pipeline):
    doc = pipeline.nlp("She was negative   for\n  pneumonia.")
    literals = {pipeline.modifier_finder.rule_of(m).literal.lower() for m, _, _ in pipeline.modifier_finder._cue_matches(doc)}
    assert "negative for" in literals


@pytest.mark.parametrize("text", NOTES)
@pytest.mark.parametrize("max_tokens", [1, 3, 8, MAX_SENTENCE_TOKENS])
def test_long_sentence_check_counts_as_the_cap_does(pipeline, text, max_tokens):
    doc = pipeline.nlp(text)
    assert _any_longer(doc, max_tokens) == _walked_longer(doc, max_tokens)


def test_the_cap_at_exactly_the_limit_cuts_nothing_and_one_past_it_cuts(pipeline):
    doc = pipeline.nlp.make_doc("a b c d e f")
    before = [t.is_sent_start for t in doc]
    _cap_sentences(doc, 6)
    assert [t.is_sent_start for t in doc] == before
    _cap_sentences(doc, 5)
    assert [t.i for t in doc if t.is_sent_start] == [0, 5]


_TERMINAL = frozenset(".!?;:")
LINES = (*NOTES, "\nlower start", "\nUpper start", "x.\n\nnext", "# Title\nlower wraps", "a \n b  \n\r c",
         "Wrapped line\ncontinues here.\nNew line.", "ends with colon:\nlower after")


def _walked_line_starts(doc: Doc) -> None:
    prev_line_last, line_first, after_break = "", "", False
    for token in doc:
        if token.is_space:
            after_break = after_break or "\n" in token.text or "\r" in token.text
            continue
        if after_break and token.i > 0:
            wrapped = prev_line_last not in _TERMINAL and line_first != "#" and token.text[:1].islower()
            if not wrapped:
                token.is_sent_start = True
        if after_break or token.i == 0:
            line_first = token.text[:1]
        after_break = False
        prev_line_last = token.text[-1:]


@pytest.mark.parametrize("text", LINES)
def test_line_starts_are_those_of_the_token_walk(pipeline, text):
    sentencizer = pipeline.nlp.get_pipe("sentencizer")
    walked, read = sentencizer(pipeline.nlp.make_doc(text)), sentencizer(pipeline.nlp.make_doc(text))
    _walked_line_starts(walked)
    if len(read):
        _line_starts(read)
    assert [t.is_sent_start for t in read] == [t.is_sent_start for t in walked]


def test_line_starts_are_those_of_the_token_walk_on_real_notes(pipeline, synthea_notes, clinosim_notes):
    """Every Synthea and clinosim note: the starts written in one array call are the walk's."""
    sentencizer = pipeline.nlp.get_pipe("sentencizer")
    for text in dict.fromkeys(t.text for d in [*synthea_notes, *clinosim_notes] for t in d.texts):
        walked, read = sentencizer(pipeline.nlp.make_doc(text)), sentencizer(pipeline.nlp.make_doc(text))
        _walked_line_starts(walked)
        if len(read):
            _line_starts(read)
        assert [t.is_sent_start for t in read] == [t.is_sent_start for t in walked], text[:80]


def test_a_lower_case_line_after_one_without_full_stop_wraps(pipeline):
    doc = pipeline.nlp("Patient reports pain in the\nleft knee. Seen today.\nplan: rest.")
    starts = [t.text for t in doc if t.is_sent_start]
    assert "left" not in starts and "plan" in starts


@pytest.mark.parametrize("text", LINES)
def test_the_pipeline_doc_holds_its_own_text(pipeline, text):
    doc = pipeline._doc(text)
    assert doc_text(doc) == doc.text == text
    assert doc_text(pipeline.nlp.make_doc(text)) == text  # no text handed over: joined once and held


def _walked_keyed(wordforms, doc: Doc) -> tuple[list[str], list[int]]:
    """The token walk `WordForms.keyed` replaced."""
    kept = [t for t in doc if not t.is_space and t.text not in JOINERS]
    return [wordforms.text_key(t.text) for t in kept], [t.i for t in kept]


@pytest.mark.parametrize("text", (*LINES, "p.o. q.d. - / – . AKI/CKD pip-tazo", " . "))
def test_keyed_words_are_those_of_the_token_walk(pipeline, text):
    for doc in (pipeline._doc(text), pipeline.nlp.make_doc(text)):
        keyed = pipeline.wordforms.keyed(doc, doc.vocab)
        assert ([t.text for t in keyed.doc], list(keyed.positions)) == _walked_keyed(pipeline.wordforms, doc)
        assert not any(t.whitespace_ for t in keyed.doc)


def test_value_finder_reads_the_doc_text_it_was_handed(pipeline):
    """`doc_text`, not `doc.text`: the same text (the pipeline hands each doc its own)."""
    text = "Labs:  K 6.1,\n\tcreatinine 2.3 mg/dL.\n"
    handed = doc_values(pipeline._doc(text))
    assert handed and handed == doc_values(pipeline.nlp(text))
