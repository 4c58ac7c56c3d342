"""Match keys: one normalised key per word, so a target phrase is found as clinicians write it.

A note is matched word by word on keys rather than on raw text:
- white space (runs of spaces, line breaks, page wraps) and joiners ("-", "/") between words
  carry no key, so "acute  kidney\\n injury", "piperacillin-tazobactam", "piperacillin
  tazobactam" and "pip/tazo" vs "pip-tazo" compare equal;
- dots inside a word go ("p.o." and "P.O." are tokenized differently at the end of a text:
  both key "po"), and a lone "." is a joiner (a match never crosses a sentence start);
- case is folded, and inflections are reduced to their lemma with lemminflect (a maintained
  English lemmatiser with its own lookup tables and out-of-vocabulary rules, no model to
  download): "rashes" -> rash, "bled" -> bleed, "injuries" -> injury, "UTIs" -> uti;
- a one- or two-letter word written in lower case keeps a key of its own: "K" (potassium),
  "MI", "PE" are abbreviations, while "k", "mi", "pe" in running text are usually not.

The match itself runs on a compact spaCy Doc of these keys (a PhraseMatcher, linear in the
note); `positions` maps each key back to its token, so spans are cut from the original doc
and slice back to the words exactly as written.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from spacy.attrs import IDX, IS_SPACE, LENGTH
from spacy.tokens import Doc
from spacy.vocab import Vocab

from .doc_text import doc_text

__all__ = ["JOINERS", "KeyedDoc", "WordForms"]

JOINERS = frozenset({"-", "/", "–", "."})
_LOWER_SHORT = "~"  # prefix of a key no term key has: short words written in lower case
_POS_ORDER = ("NOUN", "PROPN", "ADJ", "VERB")
# Short function words ("shortness of breath", "CT of the head", "SIZE IS NORMAL") key alike in a
# term and in a note, whatever their case: keyed as the note's lower-case short words are.
_SHORT_FUNCTION_WORDS = frozenset({"a", "an", "as", "at", "by", "if", "in", "is", "it", "no", "of", "on", "or",
                                   "so", "to", "up"})
_MAX_KEYS = 200_000  # memoised words per table: distinct note words and query words are unbounded


@dataclass(frozen=True, slots=True)
class KeyedDoc:
    """A note's words as match keys: `doc[i]` is the key of original token `positions[i]`."""

    doc: Doc
    positions: tuple[int, ...]


def _undotted(lower: str) -> str:
    """'p.o.' -> 'po', 'dr.' -> 'dr'; numbers ('2.3') keep their dot."""
    if "." in lower and any(ch.isalpha() for ch in lower):
        stripped = lower.replace(".", "")
        return stripped or lower
    return lower


class WordForms:
    """Word -> match key, memoised per instance (notes repeat a small vocabulary)."""

    def __init__(self) -> None:
        import lemminflect  # loads its tables (~2 s): once per pipeline, not at import

        self._lemmas = lemminflect.getAllLemmas
        self._inflections = lemminflect.getAllInflections
        self._oov = lemminflect.getAllLemmasOOV
        self._lemmas("rashes")  # its tables load on first use (~1 s): here, not in the first note
        self._oov("utis", "NOUN")
        self._text_keys: dict[str, str] = {}
        self._term_keys: dict[str, str] = {}

    def lemma(self, lower: str) -> str:
        lemma = self._lemma(lower)
        if lemma.endswith("graphy") and len(lemma) > 8:
            # The study and its record are one event in a note: "a coronary angiogram was obtained"
            # tells the coronary angiography, "venography" the venogram.
            return lemma[:-3] + "m"
        return lemma

    def _lemma(self, lower: str) -> str:
        if not lower[:1].isalpha() or len(lower) < 3:
            return lower
        found = self._lemmas(lower)
        for pos in _POS_ORDER:
            if pos in found:
                return found[pos][0]
        if found:
            return lower  # a function word: keep it
        if len(lower) >= 4 and lower.endswith("s") and not lower.endswith(("ss", "us", "is")):
            return self._oov(lower, "NOUN")["NOUN"][0]
        return lower

    def verb_forms(self, lower: str) -> tuple[str, ...]:
        """Every form of the verb a word is or names ("fall": fell, fallen, falling; "swelling":
        swell, swollen), empty for a word that names no verb."""
        if not lower.isalpha() or len(lower) < 3:
            return ()
        verb = self._lemmas(lower).get("VERB")
        if not verb:
            return ()
        forms = self._inflections(verb[0], upos="VERB")
        return tuple(dict.fromkeys((verb[0], *(f for group in forms.values() for f in group))))

    def is_verb(self, lemma: str) -> bool:
        """Whether lemminflect's tables hold this word as a verb's lemma (not its out-of-vocabulary rules)."""
        return bool(self._inflections(lemma, upos="VERB"))

    def text_key(self, text: str) -> str:
        """The key of a word as written in a note."""
        key = self._text_keys.get(text)
        if key is None:
            lower = _undotted(text.lower())
            if lower in _SHORT_FUNCTION_WORDS or (len(lower) <= 2 and text == lower and lower.isalpha()):
                key = _LOWER_SHORT + lower
            elif len(text) >= 3 and text.endswith("s") and text[:-1].isupper():
                key = lower[:-1]  # plural of an abbreviation: "UTIs", "PVCs"
            else:
                key = self.lemma(lower)
            if len(self._text_keys) < _MAX_KEYS:
                self._text_keys[text] = key
        return key

    def term_key(self, text: str) -> str:
        """The key of a word of a target term (terms are often lower-cased already)."""
        key = self._term_keys.get(text)
        if key is None:
            lower = _undotted(text.lower())
            key = _LOWER_SHORT + lower if lower in _SHORT_FUNCTION_WORDS else self.lemma(lower)
            if len(self._term_keys) < _MAX_KEYS:  # query words are anyone's: bounded like note words
                self._term_keys[text] = key
        return key

    def keyed(self, doc: Doc, vocab: Vocab) -> KeyedDoc:
        """The doc's words (not white space, not joiners) as keys. The words are read as slices of
        the doc's text at the offsets in its arrays: a Token per index cost more than the keys."""
        words: list[str] = []
        positions: list[int] = []
        if len(doc):
            text = doc_text(doc)
            arr = doc.to_array([IS_SPACE, IDX, LENGTH])
            rows = np.flatnonzero(arr[:, 0] == 0)
            for i, start, length in zip(rows.tolist(), arr[rows, 1].tolist(), arr[rows, 2].tolist(), strict=True):
                word = text[start:start + length]
                if word in JOINERS:
                    continue
                words.append(self.text_key(word))
                positions.append(i)
        return KeyedDoc(Doc(vocab, words=words, spaces=[False] * len(words)), tuple(positions))

    def term_words(self, tokens: list[str]) -> list[str]:
        return [self.term_key(t) for t in tokens if t.strip() and t not in JOINERS]
