"""A doc's text, joined once. spaCy's `Doc.text` joins every token's text again on each access,
and several note components read it (heading breaks, the abbreviation pre-check, sentences):
the pipeline hands each doc the text it was made from, and the rest reuse it."""

from __future__ import annotations

from spacy.tokens import Doc

__all__ = ["doc_text", "with_text"]

_KEY = "medeventgraph.text"  # a plain user_data key: no extension, nothing serialised


def with_text(doc: Doc, text: str) -> Doc:
    """`doc`, made by the tokenizer from `text`, holding it (tokenization keeps every character)."""
    doc.user_data[_KEY] = text
    return doc


def doc_text(doc: Doc) -> str:
    """The doc's text: the one it was made from when the pipeline said so, else joined once and held."""
    held = doc.user_data.get(_KEY)
    if held is None:
        held = doc.user_data[_KEY] = doc.text
    return held
