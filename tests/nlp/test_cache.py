"""NoteCache's bounds: keys, characters of text held, and nothing held past its last key."""

from __future__ import annotations

import gc
import weakref

from medeventgraph.nlp.cache import NoteCache, NoteKey, content_hash


class Text:
    """A processed value that can be watched for being freed (str cannot be weakly referenced)."""

    def __init__(self, text: str) -> None:
        self.text = text


def key(ref: str, text: str) -> NoteKey:
    return NoteKey(ref, None, 0, content_hash(text))


def fill(cache: NoteCache[Text], n: int, chars: int = 10) -> list[weakref.ref[Text]]:
    refs = []
    for i in range(n):
        text = f"{i:0{chars}d}"
        value = cache.get_or_compute(key(f"DocumentReference/{i}", text), lambda t=text: Text(t))
        refs.append(weakref.ref(value))
    return refs


def test_evicted_notes_are_freed_not_kept_by_the_hash_index():
    cache: NoteCache[Text] = NoteCache(8)
    refs = fill(cache, 40)
    gc.collect()
    assert len(cache) == 8 and cache.texts() == 8
    assert sum(r() is not None for r in refs) == 8  # only what the live keys hold


def test_character_bound_holds_whatever_the_key_bound():
    cache: NoteCache[Text] = NoteCache(1000, max_chars=100, chars=lambda v: len(v.text))
    fill(cache, 50, chars=10)
    assert cache.held_chars <= 100 and len(cache) == 10
    big = "x" * 101  # larger than the bound on its own: answered, not kept
    assert cache.get_or_compute(key("DocumentReference/big", big), lambda: Text(big)).text == big
    assert cache.held_chars <= 100 and cache.texts() == 10


def test_shared_text_stays_until_its_last_key_goes():
    cache: NoteCache[Text] = NoteCache(2, max_chars=50, chars=lambda v: len(v.text))
    same = "AKI after vancomycin."
    first = cache.get_or_compute(key("DocumentReference/1", same), lambda: Text(same))
    assert cache.get_or_compute(key("DiagnosticReport/1", same), lambda: Text("recomputed")) is first
    assert cache.stats.shared == 1 and cache.texts() == 1 and cache.held_chars == len(same)
    fill(cache, 1)  # evicts DocumentReference/1; DiagnosticReport/1 still holds the text
    assert cache.get_or_compute(key("DiagnosticReport/1", same), lambda: Text("recomputed")) is first
    fill(cache, 2)
    assert cache.texts() == 2 and cache.held_chars == 20



def test_word_key_memos_are_bounded(note_pipeline, monkeypatch):
    from medeventgraph.nlp import wordforms

    words = note_pipeline.wordforms
    monkeypatch.setattr(wordforms, "_MAX_KEYS", 5)
    monkeypatch.setattr(words, "_term_keys", {})  # empty memos for the test; the session's come back after
    monkeypatch.setattr(words, "_text_keys", {})
    for i in range(40):  # ever new query and note words
        assert words.term_key(f"zyxwords{i}") == f"zyxwords{i}"
        words.text_key(f"Qwerty{i}")
    assert len(words._term_keys) == len(words._text_keys) == 5
