"""Sentence splitting: spaCy's rule sentencizer plus line structure, or PyRuSH.

Notes are line-structured (headings, bullets, "Label: value" lines), and spaCy's punctuation
sentencizer alone runs a heading into the next line. The `rule` splitter therefore adds the
`medeventgraph_line_breaks` component: a new line starts a sentence unless it continues a
wrapped sentence (the previous line ends without terminal punctuation and the new line starts
in lower case); and a heading in capitals ending in ':' starts one where dictation was
flattened into one line ("... in her HPI.,PREVENTIVE CARE:  ,She had an EGD": "HPI." reads as
an abbreviation, and without the break a negation before the heading would reach into the next
section). It also caps a sentence at `MAX_SENTENCE_TOKENS` words: text without sentence
punctuation (an HTML page of paragraphs, a pasted list) would otherwise be one sentence, and
per-sentence work (ConText scopes, time expressions, copy detection) would grow with its square.
`pyrush` is medspaCy's PyRuSH (about 10x slower here with the sectionizer included, ~20x
for splitting alone; see benchmarks/bench_nlp.py), with its per-token debug logging silenced.
"""

from __future__ import annotations

import re
from typing import Any, cast

import numpy as np
from spacy.attrs import IDX, IS_SPACE, LENGTH, SENT_START
from spacy.language import Language
from spacy.tokens import Doc

from .doc_text import doc_text

__all__ = ["CAPS_HEADING", "MAX_SENTENCE_TOKENS", "SPLITTERS", "add_sentence_splitter", "silence_pyrush"]

SPLITTERS = ("rule", "pyrush")
_TERMINAL = frozenset(".!?;:")
# Longer than any sentence of the NegEx/ConText reports (at most ~80 words); a cap, not a splitter.
MAX_SENTENCE_TOKENS = 150
_SOFT_BREAKS = frozenset(",;")
# A title in capitals ending in ':' at a line start, or run in after punctuation or a run of spaces
# (flattened dictation: "... emergency room.,PAST MEDICAL HISTORY: , Asthma."); nlp/narrative.py
# reads sections with the same pattern.
CAPS_HEADING = r"(?:(?<=^)|(?<=\n)|(?<=[,.;:])|(?<=\s\s))\s*(?P<t>[A-Z][A-Z0-9 /&()'\-]{1,60}[A-Z)])\s*:"
_CAPS_HEADING = re.compile(CAPS_HEADING)
_NEWLINE = re.compile(r"[\n\r]")


@Language.component("medeventgraph_line_breaks")
def line_breaks(doc: Doc) -> Doc:
    """Mark sentence starts at line breaks that are not soft wraps (runs after the sentencizer)."""
    if len(doc):
        _line_starts(doc)
    _heading_breaks(doc)
    return doc


def _line_starts(doc: Doc) -> None:
    """A word after a line break starts a sentence unless it wraps the line before: the previous
    word ends without terminal punctuation, the line before does not start with '#', and the word
    starts in lower case. Read from the token arrays and the text, visiting only the words that
    start a line (line breaks are always in white-space tokens: the tokenizer splits at white space)."""
    text = doc_text(doc)
    arr = doc.to_array([IS_SPACE, IDX, LENGTH]).astype(np.int64)
    space, idx, length = arr[:, 0] == 1, arr[:, 1], arr[:, 2]
    breaks = np.zeros(len(doc), dtype=np.int64)  # 1 at each white-space token holding a line break
    at = np.searchsorted(idx, np.array([m.start() for m in _NEWLINE.finditer(text)], dtype=np.int64),
                         side="right") - 1
    breaks[at[space[at]]] = 1
    words = np.flatnonzero(~space)
    if not len(words):
        return
    seen = np.cumsum(breaks)[words]  # line breaks up to each word
    after_break = np.diff(seen, prepend=0) > 0
    first_chars = idx.tolist()
    ends = (idx + length - 1).tolist()
    word_list = words.tolist()
    line_first = ""  # first character of the current line
    starts: list[int] = []
    for k in np.flatnonzero(after_break | (words == 0)).tolist():
        i = word_list[k]
        first = text[first_chars[i]]
        if after_break[k] and i > 0:
            prev_line_last = text[ends[word_list[k - 1]]] if k > 0 else ""
            if prev_line_last in _TERMINAL or line_first == "#" or not first.islower():
                starts.append(i)
        line_first = first
    if starts:
        # written in one call: `doc[i].is_sent_start = True` made a Token per line and checked the
        # doc's annotations each time; both set the token's sent_start to 1
        sent_start = doc.to_array(SENT_START)
        sent_start[starts] = 1
        doc.from_array([SENT_START], cast(Any, sent_start))  # spaCy's stubs: to_array gives floats, from_array takes thinc's Ints2d


def _heading_breaks(doc: Doc) -> None:
    for m in _CAPS_HEADING.finditer(doc_text(doc)):
        title = doc.char_span(m.start("t"), m.end("t"), alignment_mode="expand")
        if title is not None:
            title[0].is_sent_start = True


@Language.component("medeventgraph_sentence_cap")
def sentence_cap(doc: Doc) -> Doc:
    _cap_sentences(doc, MAX_SENTENCE_TOKENS)
    return doc


def _cap_sentences(doc: Doc, max_tokens: int) -> None:
    """Start a new sentence after at most `max_tokens` non-space tokens, preferably after a
    comma or semicolon in the last quarter of the window (one pass: linear in the doc)."""
    if not _any_longer(doc, max_tokens):
        return  # the usual note: no sentence to cut, so no Token need be made
    count = 0
    soft: int | None = None  # token index just after the latest comma/semicolon in this sentence
    for token in doc:
        if token.i > 0 and token.is_sent_start:
            count, soft = 0, None
        if token.is_space:
            continue
        count += 1
        if count > max_tokens:
            cut = soft if soft is not None and soft > token.i - max_tokens // 4 else token.i
            doc[cut].is_sent_start = True
            count = sum(1 for t in doc[cut:token.i + 1] if not t.is_space)
            soft = None
        if token.text in _SOFT_BREAKS and token.i + 1 < len(doc):
            soft = token.i + 1


def _any_longer(doc: Doc, max_tokens: int) -> bool:
    """Whether some sentence holds more than `max_tokens` non-space tokens, read from the doc's
    arrays; sentences are counted as `_cap_sentences` counts them (a start at token 0 starts none)."""
    if not len(doc):
        return False
    starts = doc.to_array(SENT_START) == 1
    starts[0] = False
    words = doc.to_array(IS_SPACE) == 0
    return int(np.bincount(np.cumsum(starts), weights=words).max()) > max_tokens


def silence_pyrush() -> None:
    """PyRuSH logs every token at debug level through loguru; turn that off once."""
    from loguru import logger

    logger.disable("PyRuSH")


def add_sentence_splitter(nlp: Language, splitter: str) -> None:
    """Add the chosen sentence splitter to `nlp` (a medspaCy blank English pipeline)."""
    if splitter == "rule":
        nlp.add_pipe("sentencizer")
        nlp.add_pipe("medeventgraph_line_breaks")
    elif splitter == "pyrush":
        silence_pyrush()
        from pathlib import Path

        import medspacy

        rules = Path(medspacy.__file__).resolve().parents[1] / "resources" / "en" / "rush_rules.tsv"
        nlp.add_pipe("medspacy_pyrush", config={"rules_path": str(rules)})
    else:
        raise ValueError(f"sentence_splitter must be one of {SPLITTERS}, not {splitter!r}")
    nlp.add_pipe("medeventgraph_sentence_cap")
