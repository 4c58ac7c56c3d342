"""Whoosh BM25F index in RAM: the design card's backend, selectable behind the same interface."""

from __future__ import annotations

import warnings
from collections.abc import Sequence

from medeventgraph.core.index.retrieval.base import LexicalIndex, query_words, register_lexical

__all__ = ["WhooshIndex"]


@register_lexical("whoosh")
class WhooshIndex(LexicalIndex):
    def __init__(self) -> None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SyntaxWarning)  # whoosh 2.7.4 predates Python 3.12 escapes
            from whoosh import fields
            from whoosh.filedb.filestore import RamStorage

            schema = fields.Schema(id=fields.ID(stored=True), text=fields.TEXT(analyzer=_analyzer()))
            self._index = RamStorage().create_index(schema)

    def build(self, docs: Sequence[tuple[str, str]]) -> None:
        writer = self._index.writer()
        for doc_id, text in docs:
            writer.add_document(id=doc_id, text=text)
        writer.commit()

    def search(self, text: str, k: int) -> list[tuple[str, float]]:
        from whoosh import query as wq

        words = query_words(text)
        if not words:
            return []
        analyzer = self._index.schema["text"].analyzer
        terms = [t.text for w in words for t in analyzer(w)]
        if not terms:
            return []
        with self._index.searcher() as searcher:
            hits = searcher.search(wq.Or([wq.Term("text", t) for t in terms]), limit=k)
            out = [(hit["id"], float(hit.score)) for hit in hits]
        return sorted(out, key=lambda h: (-h[1], h[0]))


def _analyzer():
    from whoosh.analysis import StemmingAnalyzer

    return StemmingAnalyzer()
