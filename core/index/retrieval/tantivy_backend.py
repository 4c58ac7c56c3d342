"""tantivy (Rust) BM25 index held in memory: the default lexical channel."""

from __future__ import annotations

from collections.abc import Sequence

import tantivy
from medeventgraph.core.index.retrieval.base import LexicalIndex, query_words, register_lexical

__all__ = ["TantivyIndex"]


@register_lexical("tantivy")
class TantivyIndex(LexicalIndex):
    def __init__(self) -> None:
        builder = tantivy.SchemaBuilder()
        builder.add_text_field("id", stored=True, tokenizer_name="raw")
        builder.add_text_field("text", stored=False, tokenizer_name="en_stem")
        self._schema = builder.build()
        self._index = tantivy.Index(self._schema)
        self._searcher: tantivy.Searcher | None = None
        self._ids: list[str] | None = None  # doc number -> id, when the index is one segment

    def build(self, docs: Sequence[tuple[str, str]]) -> None:
        writer = self._index.writer(heap_size=32_000_000, num_threads=1)
        for doc_id, text in docs:
            writer.add_document(tantivy.Document(id=doc_id, text=text))
        writer.commit()
        writer.wait_merging_threads()
        self._index.reload()
        self._searcher = self._index.searcher()
        # One writer thread and one commit give one segment whose doc numbers follow insertion
        # order; then a hit's id is a list lookup instead of a stored-document fetch. Checked,
        # and any other layout falls back to fetching.
        ids = [doc_id for doc_id, _ in docs]
        self._ids = ids if ids and self._doc_numbers_follow(ids) else None

    def _doc_numbers_follow(self, ids: list[str]) -> bool:
        searcher = self._searcher
        if searcher is None or searcher.num_segments != 1 or searcher.num_docs != len(ids):
            return False
        try:
            probes = {0, len(ids) // 2, len(ids) - 1}
            return all(searcher.doc(tantivy.DocAddress(0, i))["id"][0] == ids[i] for i in probes)
        except Exception:  # noqa: BLE001 - an API difference means: fetch ids the slow way
            return False

    def search(self, text: str, k: int) -> list[tuple[str, float]]:
        words = query_words(text)
        if not words or self._searcher is None:
            return []
        query = self._index.parse_query(" ".join(words), ["text"])
        hits = self._searcher.search(query, k).hits
        ids = self._ids
        if ids is not None:
            ranked = [(-float(score), ids[addr.doc]) for score, addr in hits]
        else:
            ranked = [(-float(score), self._searcher.doc(addr)["id"][0]) for score, addr in hits]
        # tantivy breaks score ties by segment order; sort so equal scores come out by id
        # (plain tuple order: best score first, then id; no key function per hit).
        ranked.sort()
        return [(doc_id, -neg) for neg, doc_id in ranked]
