"""Binding is evidence: why an item stands for a query event, and the check that it does.

Discovery may nominate anything; what it must also say is *why* an occurrence binds to an
event, as a `BindingBasis` (event id, basis kind, detail). The contract re-checks every basis
from the item and the query alone (plus the packaged lexicon, which is code, not search
state) and admits only the events whose basis holds. A wrong binding therefore cannot reach
the assessor, whatever discovery returned.

Basis kinds and what their check requires (every kind also requires `event_admits`):

  code     detail "system|code": the code is one of the query event's own codes and one of
           the item's codes.
  lexicon  detail a lexicon concept id (or "class:<term>" for a drug-class name): the query
           event's text expands to that entry, and the item carries one of the entry's codes
           or one of its synonyms as whole words in a display.
  text     detail the normalised query text: it occurs as whole words in a display.
  kind     detail the event kind: the event is a hidden intermediate (bound by kind alone).
  similarity  detail "model|score" (core.similarity): the model is the frozen one, and the
           similarity of the event text to the item's displays, recomputed with it, matches the
           claimed score and reaches the frozen threshold (resources/similarity.json). Without
           the `dense` extra nothing can be recomputed and the basis never holds.
  derived-finding  detail "rule-id|value-id,value-id" (the rule and the values it cites): a
           condition event ("hyperkalemia") bound to a finding computed from values ("K 6.1").
           The item is a derived occurrence of that rule (its code) citing exactly those
           values; the packaged rule (core/resources/derive_rules.json) `indicates` a condition
           concept the event's text expands to; and the item's own value passes the rule's
           test and the indication's stricter limit, if any. The kind constraint of
           `event_admits` is the one exception: a condition event admits this derived item.
  phrase   detail "pieces[|without:words][|named:start-end]" (nlp/phrases.py): a note mention whose
           words tell the event split or reordered in one clause ("the gallbladder was removed" for
           "gallbladder removal"). The contract reads the item's cited characters from the note
           itself (`cited_words`); the pieces (offsets in them) fill every content word of the
           event's text in some form of it, the cited words hold no clause break and at most the
           allowed other words, and the left-out words are droppable modifiers of the event (the
           binding is then partial, and says so) or, with `named`, the event's leading words that
           the note names with their noun at those characters before the item ("insulin pump ...
           the pump malfunctioned"), read again from the note's text before the item
           (`preceding_words`).
  value    detail "analyte|value[|without:words]" (core.value_query): a lab or vital event named
           by its value ("creatinine 3.2", "heart rate in the 50s"). The event's text, read
           again, states that analyte and value (and leaves out exactly those words); the item
           carries one of the analyte's LOINC codes, and its own value is the query's (within
           the precision of both numbers, inside a stated decade, the same reading).

Every basis of a drug event asked with its dose ("Coreg 6.25 mg": the lexicon reads the drug
and the dose apart) also needs the item to state that dose (`states_dose`): in a display, or in
the few words after a note mention in its sentence, which the contract reads from the note.

Extending: add a member to `BasisKind` and its check to `CHECKS` (a check is a pure
function of the item, the event spec, the detail and the `BindingContext`). A constraint every basis
must meet (say, an event's action) belongs in `event_admits`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import Enum
from functools import lru_cache
from types import MappingProxyType
from typing import Protocol

from medeventgraph.core.index.derive import DERIVE_SYSTEM, rules_by_id
from medeventgraph.core.query.actions import action_admits, counts_against
from medeventgraph.core.query.lexicon import ExpandedTerm, Lexicon, normalize_text
from medeventgraph.core.query.model import EventSpec, VerificationQuery
from medeventgraph.model.occurrence import Kind, NoteDocument, SourceRef, Value

__all__ = [
    "CHECKS",
    "EXCLUDED_STATUS",
    "KIND_ALLOWS",
    "NOT_AFTER_NON",
    "BasisCheck",
    "BasisKind",
    "BindingBasis",
    "BindingContext",
    "BoundItem",
    "basis_holds",
    "cited_words",
    "derived_finding_basis",
    "event_admits",
    "following_words",
    "kind_allows",
    "phrase_basis",
    "preceding_words",
    "states_dose",
]

# Which occurrence kinds each query kind admits. Untyped lab-like observations stay eligible
# for lab/vital events because many feeds leave Observation.category empty. Public: the
# evaluation's gold judge names rows by the same table (benchmarks/evaluation/gold.py).
KIND_ALLOWS: dict[str, frozenset[Kind]] = {
    "medication": frozenset({Kind.MEDICATION}),
    "lab": frozenset({Kind.LAB, Kind.OBSERVATION}),
    "vital": frozenset({Kind.VITAL, Kind.OBSERVATION}),
    "condition": frozenset({Kind.CONDITION}),
    "procedure": frozenset({Kind.PROCEDURE}),
    "derived": frozenset({Kind.DERIVED}),
    "immunization": frozenset({Kind.IMMUNIZATION}),
    "allergy": frozenset({Kind.ALLERGY}),
}
CLINICAL_KINDS = frozenset().union(*KIND_ALLOWS.values())
EXCLUDED_STATUS = frozenset({"entered-in-error", "cancelled", "draft"})


def kind_allows(kind: str | None, occurrence_kind: Kind) -> bool:
    return occurrence_kind in (KIND_ALLOWS[kind] if kind else CLINICAL_KINDS)


def allowed_kinds(kind: str | None) -> frozenset[Kind]:
    return KIND_ALLOWS[kind] if kind else CLINICAL_KINDS


class BasisKind(str, Enum):
    CODE = "code"
    LEXICON = "lexicon"
    TEXT = "text"
    KIND = "kind"
    SIMILARITY = "similarity"
    DERIVED_FINDING = "derived-finding"
    VALUE = "value"
    PHRASE = "phrase"


@dataclass(frozen=True, slots=True, order=True)
class BindingBasis:
    event: str
    kind: BasisKind
    detail: str

    def describe(self) -> str:
        return f"{self.event}:{self.kind.value}:{self.detail}"


class BoundItem(Protocol):
    """What a basis check may read: the item's own content, never how it was found."""

    @property
    def kind(self) -> Kind: ...
    @property
    def status(self) -> str | None: ...
    @property
    def displays(self) -> tuple[str, ...]: ...  # normalised display texts
    @property
    def codes(self) -> tuple[str, ...]: ...  # "system|code"
    @property
    def action(self) -> str | None: ...  # Occurrence.action's value, or "resulted" for a result-time item
    @property
    def has_issued(self) -> bool: ...  # a lab whose result time could stand for `resulted`
    @property
    def derived_from(self) -> tuple[str, ...]: ...  # a derived item's cited values
    @property
    def value(self) -> Value | None: ...
    @property
    def cited(self) -> str | None: ...  # a note item's characters, read from the note by the contract
    @property
    def preceding(self) -> str | None: ...  # the note's characters before the item, read likewise
    @property
    def following(self) -> str | None: ...  # the rest of a note item's sentence after it, read likewise


@dataclass(frozen=True)
class BindingContext:
    """What checks may consult besides the item: the query's events and the packaged lexicon.
    One per contract call; `expansion` and `dose` memoise what the lexicon reads of each event."""

    events: Mapping[str, EventSpec]
    lexicon: Lexicon
    _expansions: dict[str, ExpandedTerm | None] = field(default_factory=dict, compare=False, repr=False)
    _doses: dict[str, tuple[str, str] | None] = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def of(cls, query: VerificationQuery, lexicon: Lexicon) -> BindingContext:
        return cls({e.id: e for e in query.events}, lexicon)

    def dose(self, event: EventSpec) -> tuple[str, str] | None:
        """The dose the event's text names after its drug, read once per contract call (every
        candidate's every basis asks it)."""
        if event.id not in self._doses:
            self._doses[event.id] = (self.lexicon.stated_dose(event.text, event.kind)
                                     if event.text and not event.hidden else None)
        return self._doses[event.id]

    def expansion(self, event: EventSpec) -> ExpandedTerm | None:
        if event.id not in self._expansions:
            self._expansions[event.id] = self.lexicon.expand(event.text, event.kind) if event.text else None
        return self._expansions[event.id]


BasisCheck = Callable[[BoundItem, EventSpec, str, BindingContext], bool]


def event_admits(item: BoundItem, event: EventSpec, derived_finding: bool = False) -> bool:
    """Constraints every basis must meet: the event's kind, its action (core.actions: an order
    is not a dose), and a status that is a record (or, for administered / performed, one that
    says it did not happen: admitted as counter-evidence). `derived_finding`: the kind is that
    of a derived-finding basis (a condition event, a derived item)."""
    action = event.effective_action
    kind_ok = (event.kind in (None, "condition") and item.kind is Kind.DERIVED if derived_finding
               else kind_allows(event.kind, item.kind))
    return (
        kind_ok
        and action_admits(action, item.action, item.kind, item.has_issued)
        and (item.status not in EXCLUDED_STATUS or counts_against(action, item.status))
    )


# A term written after "non" names its opposite ("non-ST elevation myocardial infarction" is no STEMI,
# "non-small cell" no small cell carcinoma): the words are there, the thing is not.
NOT_AFTER_NON = r"(?<![\w])(?<!\bnon-)(?<!\bnon )"


@lru_cache(maxsize=4096)
def _word_pattern(term: str) -> re.Pattern[str]:
    return re.compile(rf"{NOT_AFTER_NON}{re.escape(term)}(?![\w])")


def _whole_words(term: str, displays: tuple[str, ...]) -> bool:
    return bool(term) and any(_word_pattern(term).search(d) for d in displays)


def _check_code(item: BoundItem, event: EventSpec, detail: str, ctx: BindingContext) -> bool:
    return detail in item.codes and detail in {f"{c.system}|{c.code}" for c in event.codes}


def _check_lexicon(item: BoundItem, event: EventSpec, detail: str, ctx: BindingContext) -> bool:
    expanded = ctx.expansion(event)
    if expanded is None:
        return False
    if detail.startswith("class:"):
        term = detail[len("class:"):]
        return expanded.via == "class" and term in expanded.terms and _whole_words(term, item.displays)
    if detail not in expanded.concepts:
        return False
    concept = ctx.lexicon.concepts[detail]
    if {f"{c.system}|{c.code}" for c in concept.codes} & set(item.codes):
        return True
    return any(_whole_words(normalize_text(s), item.displays) for s in concept.synonyms)


def _check_text(item: BoundItem, event: EventSpec, detail: str, ctx: BindingContext) -> bool:
    return bool(event.text) and detail == normalize_text(event.text or "") and _whole_words(detail, item.displays)


def _check_kind(item: BoundItem, event: EventSpec, detail: str, ctx: BindingContext) -> bool:
    return event.hidden and detail == (event.kind or "")


def _check_similarity(item: BoundItem, event: EventSpec, detail: str, ctx: BindingContext) -> bool:
    from medeventgraph.core.evidence.similarity import (
        SCORE_TOLERANCE,
        best_similarity,
        load_rule,
        parse_claim,
    )

    claimed = parse_claim(detail)
    rule = load_rule()
    if claimed is None or claimed[0] != rule.model or event.hidden or not event.text:
        return False
    score = best_similarity(rule.model, normalize_text(event.text), item.displays)
    return score is not None and score >= rule.threshold and abs(score - claimed[1]) <= SCORE_TOLERANCE


def _derived_rule(codes: tuple[str, ...]) -> str | None:
    prefix = DERIVE_SYSTEM + "|"
    return next((c[len(prefix):] for c in codes if c.startswith(prefix)), None)


def derived_finding_basis(event: EventSpec, concepts: tuple[str, ...], kind: Kind, codes: tuple[str, ...],
                          value: Value | None, derived_from: tuple[str, ...]) -> BindingBasis | None:
    """The derived-finding basis a derived occurrence has for a condition event whose text
    expands to `concepts`, or None (what grounding nominates and `_check_derived_finding` re-checks)."""
    if kind is not Kind.DERIVED or event.hidden or value is None or not derived_from:
        return None
    rule = rules_by_id().get(_derived_rule(codes) or "")
    if rule is None or rule.indication(concepts, value) is None:
        return None
    return BindingBasis(event.id, BasisKind.DERIVED_FINDING, f"{rule.id}|{','.join(derived_from)}")


def _check_derived_finding(item: BoundItem, event: EventSpec, detail: str, ctx: BindingContext) -> bool:
    expanded = ctx.expansion(event)
    if expanded is None or not expanded.concepts:
        return False
    basis = derived_finding_basis(event, expanded.concepts, item.kind, item.codes, item.value, item.derived_from)
    return basis is not None and basis.detail == detail


def phrase_basis(event: str, pieces: str, dropped: str | None, named: str | None = None) -> BindingBasis:
    """The phrase basis of a mention whose extra records `phrase_pieces` (and `phrase_without`,
    `phrase_named`)."""
    return BindingBasis(event, BasisKind.PHRASE, pieces + (f"|without:{dropped}" if dropped else "")
                        + (f"|named:{named}" if named else ""))


def _check_phrase(item: BoundItem, event: EventSpec, detail: str, ctx: BindingContext) -> bool:
    from medeventgraph.nlp.phrases import check_phrase

    cited = item.cited
    if cited is None or event.hidden or not event.text:
        return False
    written, *parts = detail.split("|")
    fields = dict(p.partition(":")[::2] for p in parts)
    if set(fields) - {"without", "named"}:
        return False
    try:
        pieces = tuple((int(a), int(b)) for a, b in (p.split("-", 1) for p in written.split(",")))
        named = tuple(int(x) for x in fields["named"].split("-", 1)) if "named" in fields else None
    except ValueError:
        return False
    if named is not None and len(named) != 2:
        return False
    return check_phrase(cited, normalize_text(event.text), pieces, tuple(fields.get("without", "").split()),
                        named=named, preceding=item.preceding)  # type: ignore[arg-type]


def _cited_text(source: SourceRef, documents: Mapping[str, NoteDocument]) -> str | None:
    """The whole text of the note attachment an item cites a span of (None: not a note span, or a
    span past the text's end)."""
    if source.start is None or source.end is None:
        return None
    document = documents.get(source.reference)
    text = next((t.text for t in document.texts if t.attachment == (source.attachment or 0)), None) if document else None
    return text if text is not None and source.end <= len(text) else None


def cited_words(source: SourceRef, documents: Mapping[str, NoteDocument]) -> str | None:
    """The characters a note item cites, read from the note's own text (None: not a note span)."""
    text = _cited_text(source, documents)
    return None if text is None else text[source.start:source.end]


def preceding_words(source: SourceRef, documents: Mapping[str, NoteDocument]) -> str | None:
    """The note's characters before the ones an item cites (None: not a note span)."""
    text = _cited_text(source, documents)
    return None if text is None else text[:source.start]


def following_words(source: SourceRef, documents: Mapping[str, NoteDocument]) -> str | None:
    """The rest of a note item's sentence after the characters it cites (None: not a note span)."""
    text = _cited_text(source, documents)
    if text is None or source.end is None:
        return None
    rest = text[source.end:source.end + _FOLLOWING_REACH]
    end = _SENTENCE_END.search(rest)
    return rest[:end.start()] if end else rest


_FOLLOWING_REACH = 200  # characters after a mention read for what its sentence says of it
_SENTENCE_END = re.compile(r"[.!?;](?=\s|$)|\n")


def _check_value(item: BoundItem, event: EventSpec, detail: str, ctx: BindingContext) -> bool:
    from medeventgraph.core.query.value_query import parse_value_query, value_matches

    stated = parse_value_query(event.text, ctx.lexicon) if event.text and not event.hidden else None
    return (stated is not None and stated.detail == detail and bool(stated.codes & set(item.codes))
            and value_matches(stated, item.value))


CHECKS: Mapping[BasisKind, BasisCheck] = MappingProxyType({
    BasisKind.CODE: _check_code,
    BasisKind.LEXICON: _check_lexicon,
    BasisKind.TEXT: _check_text,
    BasisKind.KIND: _check_kind,
    BasisKind.SIMILARITY: _check_similarity,
    BasisKind.DERIVED_FINDING: _check_derived_finding,
    BasisKind.VALUE: _check_value,
    BasisKind.PHRASE: _check_phrase,
})


def states_dose(item: BoundItem, dose: tuple[str, str] | None) -> bool:
    """A drug asked with its dose ("Coreg 6.25 mg") is bound only by an item that states that dose: in
    a display ("carvedilol 6.25 MG Oral Tablet") or, for a note mention, in the rest of its sentence
    ("decreasing the Coreg to 6.25 mg"), within a few words of it; another dose of the drug is
    another event (a plan "until she was on 200 mg" is no dose she was given)."""
    if dose is None:
        return True
    number, unit = dose
    pattern = re.compile(rf"(?<![\w.]){re.escape(number)}\s*{re.escape(unit)}(?![\w])", re.IGNORECASE)
    if any(pattern.search(d) for d in item.displays):
        return True
    following = item.following or ""
    m = pattern.search(following)
    return m is not None and len(following[:m.start()].split()) <= _DOSE_WORDS


_DOSE_WORDS = 4  # words between a mention and the dose it is given at ("the Coreg was decreased to 6.25 mg")


def basis_holds(basis: BindingBasis, item: BoundItem, ctx: BindingContext) -> bool:
    """Does this basis bind this item to its event? From the item and the query alone."""
    event = ctx.events.get(basis.event)
    if event is None or not event_admits(item, event, basis.kind is BasisKind.DERIVED_FINDING):
        return False
    if not states_dose(item, ctx.dose(event)):
        return False
    check = CHECKS.get(basis.kind)
    return check is not None and check(item, event, basis.detail, ctx)
