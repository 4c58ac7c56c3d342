"""The context store: each occurrence's evidence text and metadata, and the retrieval channels.

Channels: lexical (BM25 through a registered backend) and metadata (patient, encounter,
episode, time window, kind, assertion). The dense channel plugs in beside them (extra).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from medeventgraph.core.index.retrieval.base import LexicalIndex, make_lexical

if TYPE_CHECKING:
    from medeventgraph.core.index.retrieval.dense_backend import DenseIndex
from medeventgraph.model.occurrence import Kind, Occurrence, Origin

__all__ = ["Context", "ContextStore", "build_store", "format_time", "render_context"]


def format_time(dt: datetime | None) -> str:
    return dt.isoformat().replace("+00:00", "Z") if dt else "unknown"


def render_context(occ: Occurrence) -> str:
    """A readable one-line rendering of a structured row; note mentions keep their sentence."""
    if occ.origin is Origin.NOTE and occ.text:
        return occ.text
    parts = [occ.source.resource_type, occ.concept.text or "(no display)"]
    if occ.value is not None:
        v = occ.value
        if v.quantity is not None:
            parts.append(f"{v.quantity:g} {v.unit or ''}".strip())
        elif v.text:
            parts.append(v.text)
        if v.interpretation:
            parts.append(f"interpretation {v.interpretation}")
        if v.low is not None or v.high is not None:
            parts.append(f"reference {'' if v.low is None else f'{v.low:g}'}-{'' if v.high is None else f'{v.high:g}'}")
    t = occ.time
    when = format_time(t.start) + (f" to {format_time(t.end)}" if t.end else "")
    parts.append(f"{t.type.value} time {when} ({t.granularity.value})")
    if occ.status:
        parts.append(f"status {occ.status}")
    a = occ.assertion
    flags = [n for n in ("negated", "uncertain", "hypothetical", "historical", "family") if getattr(a, n)]
    if flags:
        parts.append("assertion " + ",".join(flags))
    return " | ".join(parts)


def _semantic_text(occ: Occurrence) -> str:
    """What the dense channel embeds: meaning without times or values, so that the hundreds of
    repeated rows of one concept share one embedding."""
    if occ.origin is Origin.NOTE and occ.text:
        return occ.text
    a = occ.assertion
    flags = [n for n in ("negated", "uncertain", "hypothetical", "historical", "family") if getattr(a, n)]
    return " ".join([occ.kind.value, occ.concept.text or "", *flags, occ.status or ""]).strip()


@dataclass(frozen=True, slots=True)
class Context:
    occurrence: str
    text: str
    kind: Kind
    origin: Origin
    encounter: str | None
    episode: str | None
    start: datetime | None


class ContextStore:
    def __init__(
        self,
        patient: str,
        contexts: dict[str, Context],
        lexical: Callable[[], LexicalIndex],
        dense: DenseIndex | None = None,
    ):
        self.patient = patient
        self._contexts = contexts
        # The BM25 index is built on first use: a query whose events grounding cannot bind,
        # and the simple path, never search text, and a small record's index costs more to
        # build (a fixed ~5 ms for tantivy) than the rest of its store.
        self._make_lexical = lexical
        self._lexical: LexicalIndex | None = None
        self._lexical_lock = threading.Lock()
        self._dense = dense
        # Metadata postings, each list in id order: a filter starts from its narrowest posting
        # instead of scanning every context.
        self._ids = sorted(contexts)
        self._by_kind: dict[Kind, list[str]] = {}
        self._by_encounter: dict[str | None, list[str]] = {}
        self._by_episode: dict[str | None, list[str]] = {}
        for oid in self._ids:
            c = contexts[oid]
            self._by_kind.setdefault(c.kind, []).append(oid)
            self._by_encounter.setdefault(c.encounter, []).append(oid)
            self._by_episode.setdefault(c.episode, []).append(oid)

    @property
    def has_dense(self) -> bool:
        return self._dense is not None

    def __contains__(self, occurrence_id: str) -> bool:
        return occurrence_id in self._contexts

    def __len__(self) -> int:
        return len(self._contexts)

    def get(self, occurrence_id: str) -> Context:
        return self._contexts[occurrence_id]

    def lexical_index(self) -> LexicalIndex:
        if self._lexical is None:
            with self._lexical_lock:
                if self._lexical is None:
                    self._lexical = self._make_lexical()
        return self._lexical

    def lexical(self, text: str, k: int) -> list[tuple[str, float]]:
        return self.lexical_index().search(text, k)

    def prime_dense(self, texts: list[str]) -> None:
        """Embed the texts about to be searched in one batch (no-op without the dense channel)."""
        if self._dense is not None:
            self._dense.prime(texts)

    def dense(self, text: str, k: int) -> list[tuple[str, float]]:
        """Cosine neighbours of `text`; empty when the dense extra is absent or off."""
        return self._dense.search(text, k) if self._dense is not None else []

    def metadata(
        self,
        *,
        kinds: Iterable[Kind] | None = None,
        encounter: str | None = None,
        episode: str | None = None,
        start: datetime | None = None,
        end: datetime | None = None,
    ) -> list[str]:
        """Occurrence ids passing every given filter, in id order."""
        wanted = frozenset(kinds) if kinds is not None else None
        if encounter is not None:
            pool = self._by_encounter.get(encounter, [])
        elif episode is not None:
            pool = self._by_episode.get(episode, [])
        elif wanted is not None:
            if len(wanted) == 1:
                pool = self._by_kind.get(next(iter(wanted)), [])
            else:
                pool = sorted(oid for k in wanted for oid in self._by_kind.get(k, ()))
        else:
            pool = self._ids
        contexts = self._contexts
        out = []
        for oid in pool:
            c = contexts[oid]
            if wanted is not None and c.kind not in wanted:
                continue
            if encounter is not None and c.encounter != encounter:
                continue
            if episode is not None and c.episode != episode:
                continue
            if start is not None and (c.start is None or c.start < start):
                continue
            if end is not None and (c.start is None or c.start > end):
                continue
            out.append(oid)
        return out


def build_store(
    patient: str,
    occurrences: Iterable[Occurrence],
    backend: str = "tantivy",
    *,
    dense: bool = False,
    cache_dir: Path | None = None,
) -> ContextStore:
    contexts: dict[str, Context] = {}
    semantic: dict[str, str] = {}
    for occ in occurrences:
        if occ.patient != patient:
            continue
        contexts[occ.id] = Context(
            occ.id, render_context(occ), occ.kind, occ.origin, occ.encounter, occ.episode, occ.time.start
        )
        if dense:  # only the dense channel reads it
            semantic[occ.id] = _semantic_text(occ)
    docs = [(oid, c.text) for oid, c in sorted(contexts.items())]

    def lexical() -> LexicalIndex:
        index = make_lexical(backend)
        index.build(docs)
        return index

    dense_index = None
    if dense:
        from medeventgraph.core.index.retrieval.dense_backend import make_dense

        dense_index = make_dense("minilm", cache_dir)  # None without the extra: other channels still work
        if dense_index is not None:
            dense_index.build([(oid, semantic[oid]) for oid, _ in docs])
    return ContextStore(patient, contexts, lexical, dense_index)
