"""The curated lexicon (resources/lexicon.json): concepts, synonyms, codes and classes (drug classes,
and a condition or procedure named with its subtypes).

Shared by concept grounding and by the note target rules, so a term that grounds a
structured resource is also the term searched for in notes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property, lru_cache
from pathlib import Path

import orjson
from medeventgraph.model.occurrence import Occurrence
from medeventgraph.model.packaged import packaged_model
from pydantic import BaseModel, Field, model_validator

__all__ = ["ExpandedTerm", "Lexicon", "LexiconConcept", "display_text", "load_lexicon", "normalize_text"]

_SPACE = re.compile(r"\s+")
_PUNCT = re.compile(r"[^\w\s/+.-]")
# A dose after a drug name: the number, its unit, and any route or frequency words after it.
_DOSE = re.compile(r"^(?P<drug>.+?)\s+(?P<dose>\d+(?:\.\d+)?)\s*(?P<unit>mg|mcg|g|gm|grams?|units?|meq|ml|mg/kg|mcg/kg|"
                   r"mcg/kg/min)(?:\s+[a-z0-9.]+){0,3}$")


@lru_cache(maxsize=65536)
def normalize_text(text: str) -> str:
    """Lower-case, strip punctuation that never carries meaning here, collapse spaces.

    Memoised: records repeat the same few hundred displays thousands of times."""
    return _SPACE.sub(" ", _PUNCT.sub(" ", text.lower())).strip()


class _CodeModel(BaseModel):
    system: str
    code: str


class LexiconConcept(BaseModel):
    id: str
    kind: str
    synonyms: list[str]
    codes: list[_CodeModel] = Field(default_factory=list)
    classes: list[str] = Field(default_factory=list)


class _ClassModel(BaseModel):
    id: str
    kind: str
    synonyms: list[str]


class _AmbiguousForm(BaseModel):
    """A short form that names several things ("PE": pulmonary embolism, physical examination)."""

    form: str
    senses: list[str] = Field(min_length=2)


class _LexiconFile(BaseModel):
    version: int
    about: str = ""
    concepts: list[LexiconConcept]
    classes: list[_ClassModel]
    ambiguous: list[_AmbiguousForm] = Field(default_factory=list)

    @model_validator(mode="after")
    def _ambiguous_forms_name_no_concept(self) -> _LexiconFile:
        forms = {normalize_text(a.form) for a in self.ambiguous}
        clash = sorted(forms & {normalize_text(s) for c in self.concepts for s in c.synonyms})
        if clash:
            raise ValueError(f"ambiguous short forms listed as a concept synonym: {clash}")
        return self

    @model_validator(mode="after")
    def _members_share_their_class_kind(self) -> _LexiconFile:
        # a class grounds its members for a question of its kind: a member of another kind would be bound unasked
        kinds = {cls.id: cls.kind for cls in self.classes}
        wrong = sorted(f"{c.id} in {name}" for c in self.concepts for name in c.classes if kinds.get(name) != c.kind)
        if wrong:
            raise ValueError(f"concepts in an unknown class or one of another kind: {wrong}")
        return self


@dataclass(frozen=True)
class ExpandedTerm:
    """What a query text expands to: the surface terms to look for, codes, and why."""

    text: str
    concepts: tuple[str, ...]  # lexicon concept ids matched (empty: the text is used as is)
    terms: tuple[str, ...]  # normalised surface forms, longest first
    codes: tuple[tuple[str, str], ...]
    kind: str | None
    via: str  # "concept" | "class" | "literal"


class Lexicon:
    def __init__(self, data: _LexiconFile):
        self._data = data
        self.concepts = {c.id: c for c in data.concepts}
        self._by_synonym: dict[str, list[LexiconConcept]] = {}
        for concept in data.concepts:
            for s in dict.fromkeys(normalize_text(s) for s in concept.synonyms):  # "i&d" and "i & d" are one
                self._by_synonym.setdefault(s, []).append(concept)
        self._class_members: dict[str, list[LexiconConcept]] = {}
        for concept in data.concepts:
            for cls in concept.classes:
                self._class_members.setdefault(cls, []).append(concept)
        self._class_by_synonym = {
            normalize_text(s): cls.id for cls in data.classes for s in cls.synonyms + [cls.id]
        }
        self._class_kind = {cls.id: cls.kind for cls in data.classes}
        self._ambiguous = {normalize_text(a.form): tuple(a.senses) for a in data.ambiguous}
        self._class_names = {cls.id: tuple(normalize_text(s) for s in cls.synonyms) for cls in data.classes}

    def senses(self, text: str) -> tuple[str, ...]:
        """The things an ambiguous short form may name (empty: it is not ambiguous). Such a form
        expands to nothing and is no note target: without context it binds no sense."""
        return self._ambiguous.get(normalize_text(text), ())

    def expand(self, text: str, kind: str | None = None) -> ExpandedTerm:
        norm = normalize_text(text)
        if kind in (None, "medication"):
            # "Coreg 6.25 mg", "metoprolol 25 mg b.i.d.": the drug is named before its dose
            dosed = _DOSE.match(norm)
            if dosed is not None and self._names_drug(dosed.group("drug")):
                norm = dosed.group("drug")
        candidates = [norm, norm[:-1]] if norm.endswith("s") and len(norm) > 4 else [norm]
        for cand in candidates:
            cls = self._class_by_synonym.get(cand)
            if cls is not None and kind in (None, self._class_kind[cls]):
                members = self._class_members.get(cls, [])
                # the class's own names too: a note mention of the class ("antibiotics") is named by its id
                names = [cand, cls, *self._class_names.get(cls, ())]
                return self._expanded(text, members, "class", self._class_kind[cls], extra=names)
            concepts = [c for c in self._by_synonym.get(cand, []) if kind in (None, c.kind)]
            if concepts:
                return self._expanded(text, concepts, "concept", kind or concepts[0].kind)
        return ExpandedTerm(text, (), (norm,), (), kind, "literal")

    def stated_dose(self, text: str, kind: str | None = None) -> tuple[str, str] | None:
        """The dose a medication query names after its drug ("Coreg 6.25 mg": ("6.25", "mg")), or None.
        The drug alone is what `expand` looks up; the dose is what a bound item must also state."""
        if kind not in (None, "medication"):
            return None
        dosed = _DOSE.match(normalize_text(text))
        if dosed is None or not self._names_drug(dosed.group("drug")):
            return None
        return dosed.group("dose"), dosed.group("unit")

    def _names_drug(self, norm: str) -> bool:
        cls = self._class_by_synonym.get(norm)
        return (cls is not None and self._class_kind[cls] == "medication") or any(c.kind == "medication" for c in self._by_synonym.get(norm, ()))

    def _expanded(
        self, text: str, concepts: list[LexiconConcept], via: str, kind: str, extra: list[str] | None = None
    ) -> ExpandedTerm:
        terms = {normalize_text(s) for c in concepts for s in c.synonyms} | set(extra or [])
        codes = tuple(sorted({(k.system, k.code) for c in concepts for k in c.codes}))
        ordered = tuple(sorted(terms, key=lambda t: (-len(t), t)))
        return ExpandedTerm(text, tuple(c.id for c in concepts), ordered, codes, kind, via)

    def concept_for_code(self, system: str, code: str) -> LexiconConcept | None:
        return self._code_index.get((system, code))

    @cached_property
    def _code_index(self) -> dict[tuple[str, str], LexiconConcept]:
        return {(k.system, k.code): c for c in self._data.concepts for k in c.codes}

    def all_terms(self) -> list[tuple[str, str, str]]:
        """(surface term, concept id, kind) for every synonym: the note target rules."""
        return [(s, c.id, c.kind) for c in self._data.concepts for s in c.synonyms]

    def note_terms(self) -> list[tuple[str, str, str]]:
        """The note target rules: every concept synonym, and every drug-class name ("continue
        current antibiotics") as a mention of the class itself (its concept: the class id). A
        class mention binds only a question that names the class (basis `class:<term>`), never
        one that names a member."""
        synonyms = {normalize_text(s) for c in self._data.concepts for s in c.synonyms}
        classes = [(s, cls.id, cls.kind) for cls in self._data.classes for s in dict.fromkeys([*cls.synonyms, cls.id])
                   if normalize_text(s) not in synonyms and cls.id not in self.concepts]
        return self.all_terms() + classes


def load_lexicon(path: Path | None = None) -> Lexicon:
    """The packaged lexicon (parsed once per process and shared: a Lexicon is read-only), or a file."""
    if path is None:
        return _packaged_lexicon()
    return Lexicon(_LexiconFile.model_validate(orjson.loads(path.read_bytes())))


@lru_cache(maxsize=1)
def _packaged_lexicon() -> Lexicon:
    return Lexicon(packaged_model("medeventgraph.core", "lexicon.json", _LexiconFile))


def display_text(occurrence: Occurrence) -> str:
    """Every display of an occurrence, normalised and joined; what text matching runs on."""
    return " | ".join(normalize_text(d) for d in occurrence.concept.displays())
