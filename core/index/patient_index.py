"""A patient's searchable form: occurrences (structured, derived, note mentions), graph, store.

Built once per patient record and reused across queries (the service caches it by
content hash). Building it never looks at a query; query-specific note terms are matched
lazily and cached (`mentions_for`).
"""

from __future__ import annotations

import hashlib
import re
import threading
from dataclasses import dataclass, field, replace
from datetime import timedelta
from typing import TYPE_CHECKING

import orjson
from medeventgraph.core.index.graph import PatientGraph, build_graph, sort_key
from medeventgraph.core.index.store import ContextStore, build_store
from medeventgraph.core.index.value_copies import link_recorded_copies
from medeventgraph.core.query.lexicon import Lexicon, display_text, load_lexicon, normalize_text
from medeventgraph.fhir_adapters.record import PatientRecord
from medeventgraph.model.occurrence import Concept, EventTime, Kind, NoteDocument, Occurrence, Origin
from medeventgraph.model.settings import Settings

if TYPE_CHECKING:
    from medeventgraph.nlp import NotePipeline

__all__ = ["CONTIGUITY_GAP", "MENTION_CACHE_SIZE", "PatientIndex", "build_index", "episodes_of"]

# Encounters that follow each other within this gap form one episode when no EpisodeOfCare
# or Encounter.partOf says otherwise (e.g. ED visit then inpatient admission).
CONTIGUITY_GAP = timedelta(hours=24)
MENTION_CACHE_SIZE = 64  # query term sets whose note mentions one index keeps

# SNOMED CT displays end in a semantic tag ("Sepsis (disorder)") that notes do not repeat.
_SEMANTIC_TAG = re.compile(r"\s*\([a-z /]+\)\s*$")

_TERM_KINDS = {
    Kind.MEDICATION, Kind.LAB, Kind.VITAL, Kind.CONDITION, Kind.PROCEDURE, Kind.IMMUNIZATION, Kind.ALLERGY,
}


@dataclass
class PatientIndex:
    record: PatientRecord
    occurrences: dict[str, Occurrence]
    graph: PatientGraph
    store: ContextStore
    displays: dict[str, str]
    episodes: dict[str, str]
    documents: dict[str, NoteDocument]
    lexicon: Lexicon
    notes: NotePipeline | None = None
    validation: dict[str, list] = field(default_factory=dict)  # cited resource -> fhir.resources issues
    _mention_cache: dict[tuple[tuple[str, str, str], ...], list[Occurrence]] = field(default_factory=dict)
    _content_hash: str | None = field(default=None, repr=False)
    _mention_lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    @property
    def content_hash(self) -> str:
        """sha256 of the patient's resources; computed on first use (serialising the whole
        record costs about as much as parsing it, and most callers never ask)."""
        if self._content_hash is None:
            self._content_hash = content_hash(self.record)
        return self._content_hash

    @property
    def patient(self) -> str:
        return self.record.patient

    def mentions_for(self, terms: list[tuple[str, str, str | None]]) -> list[Occurrence]:
        """Note mentions of extra (literal, concept, kind) terms, e.g. a query's own words."""
        if self.notes is None or not self.documents or not terms:
            return []
        key = tuple(sorted((lit, con, kind or "") for lit, con, kind in terms))
        cached = self._mention_cache.get(key)
        if cached is None:
            from medeventgraph.nlp import TargetTerm

            targets = [TargetTerm(lit, con, Kind(kind) if kind else None, "query") for lit, con, kind in terms]
            found = self.notes.mentions(list(self.documents.values()), targets, _encounter_periods(self.record.occurrences))
            asked = {Kind(kind) for _, _, kind in terms if kind}
            cached = [m for m in (self._own_kind(m, asked) for m in found) if m.id not in self.occurrences]
            # bounded: a cached index (a chart in use) asked ever new questions would grow without end;
            # the oldest question's mentions go first (recomputed, identically, if it comes back)
            with self._mention_lock:
                while len(self._mention_cache) >= MENTION_CACHE_SIZE:
                    del self._mention_cache[next(iter(self._mention_cache))]
                self._mention_cache[key] = cached
        return cached

    def _own_kind(self, mention: Occurrence, asked: set[Kind]) -> Occurrence:
        """A query's words at a span the lexicon already reads as another kind keep the query's
        kind, under an id of their own: "chemotherapy" asked as a procedure where the lexicon
        reads the drug class, "transfusion" asked as a medication. The same span, cited the same.
        A question that names no kind takes any kind, so the lexicon's reading serves it."""
        held = self.occurrences.get(mention.id)
        if held is None or held.kind is mention.kind or mention.kind not in asked:
            return mention
        return replace(mention, id=f"{mention.id}/{mention.kind.value}")


def _encounter_periods(occurrences: list[Occurrence]) -> dict[str, EventTime]:
    """Encounter reference -> its period: the admission and discharge anchors of note times."""
    return {o.id: o.time for o in occurrences if o.kind is Kind.ENCOUNTER}


def episodes_of(occurrences: list[Occurrence]) -> dict[str, str]:
    """Encounter reference -> episode key: EpisodeOfCare, else partOf root, else contiguity."""
    encounters = sorted((o for o in occurrences if o.kind is Kind.ENCOUNTER), key=sort_key)
    parent = {o.id: t for o in encounters for rel, t in o.links if rel == "partOf"}
    out: dict[str, str] = {}
    previous: Occurrence | None = None
    current_key = ""
    for enc in encounters:
        root = enc.id
        seen = {root}
        while root in parent and parent[root] not in seen:
            root = parent[root]
            seen.add(root)
        if enc.episode:
            key = enc.episode
        elif root != enc.id:
            key = out.get(root, f"episode:{root}")
        elif previous is not None and _contiguous(previous, enc):
            key = current_key
        else:
            key = f"episode:{enc.id}"
        out[enc.id] = key
        previous, current_key = enc, key
    return out


def _contiguous(a: Occurrence, b: Occurrence) -> bool:
    end = a.time.end or a.time.start
    return end is not None and b.time.start is not None and b.time.start - end <= CONTIGUITY_GAP


def build_index(
    record: PatientRecord,
    settings: Settings,
    *,
    lexicon: Lexicon | None = None,
    notes: NotePipeline | None = None,
) -> PatientIndex:
    lexicon = lexicon or load_lexicon()
    occurrences = list(record.occurrences)
    documents = {d.reference: d for d in record.documents}
    use_notes = notes is not None and settings.notes and bool(documents)
    # Values notes state ("K 6.1") are lab and vital mentions the derivations read like Observations;
    # both they and the term mentions come from one pass over the notes.
    values: list[Occurrence] = []
    mentions: list[Occurrence] = []
    if notes is not None and use_notes:
        values, mentions = notes.read(list(documents.values()), _target_terms(lexicon, record.occurrences),
                                      _encounter_periods(record.occurrences))
    values = link_recorded_copies(values, occurrences)
    derived = _derive(occurrences + values)
    occurrences.extend(derived)
    occurrences.extend(values)
    occurrences.extend(mentions)
    by_id = {o.id: o for o in occurrences}
    graph = build_graph(record.patient, by_id.values())
    store = build_store(
        record.patient, by_id.values(), settings.lexical_backend, dense=settings.dense, cache_dir=settings.cache_dir
    )
    displays = _displays(by_id)
    return PatientIndex(
        record=record,
        occurrences=by_id,
        graph=graph,
        store=store,
        displays=displays,
        episodes=episodes_of(occurrences),
        documents=documents,
        lexicon=lexicon,
        notes=notes if settings.notes else None,
    )


def _displays(occurrences: dict[str, Occurrence]) -> dict[str, str]:
    """display_text per occurrence, computed once per distinct concept (records repeat a few
    hundred concepts thousands of times)."""
    by_concept: dict[Concept, str] = {}
    out = {}
    for oid, occ in occurrences.items():
        text = by_concept.get(occ.concept)
        if text is None:
            text = by_concept[occ.concept] = display_text(occ)
        out[oid] = text
    return out


def content_hash(record: PatientRecord) -> str:
    payload = orjson.dumps(record.resources, option=orjson.OPT_SORT_KEYS)
    return "sha256:" + hashlib.sha256(record.patient.encode() + b"\0" + payload).hexdigest()


def _derive(occurrences: list[Occurrence]) -> list[Occurrence]:
    try:
        from medeventgraph.core.index.derive import derive_occurrences
    except ImportError:  # the rule table lands with the discovery controller
        return []
    return derive_occurrences(occurrences)


def _target_terms(lexicon: Lexicon, structured: list[Occurrence]):
    """Note target rules: the lexicon's synonyms plus the displays of the patient's own record."""
    from medeventgraph.nlp import TargetTerm

    terms = {(s.lower(), cid, kind): "lexicon" for s, cid, kind in lexicon.note_terms()}
    for occ in structured:
        if occ.origin is Origin.STRUCTURED and occ.kind in _TERM_KINDS and occ.concept.text:
            text = normalize_text(_SEMANTIC_TAG.sub("", occ.concept.text))
            if 3 <= len(text) <= 80:
                terms.setdefault((text, text, occ.kind.value), "record")
    return [TargetTerm(lit, con, Kind(kind), src) for (lit, con, kind), src in terms.items()]
