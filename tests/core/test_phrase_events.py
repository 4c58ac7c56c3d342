"""A query's event told split across a clause binds by the phrase basis, which the contract
re-reads from the note's own characters: a basis the note's words do not make is refused."""

from __future__ import annotations

import pytest
from medeventgraph.core.discover.admit import admit
from medeventgraph.core.discover.exhaustive import ground_all, query_mentions
from medeventgraph.core.evidence.binding import BasisKind, BindingBasis
from medeventgraph.core.evidence.contract import Candidate, contract
from medeventgraph.core.query.model import VerificationQuery

from .conftest import note_index

NOTE = ("Hospital course: She was given vancomycin on admission. On day two the gallbladder was removed and "
        "a drain was placed. The appendix was removed through a small incision.")


def _query(text: str, kind: str = "procedure") -> VerificationQuery:
    return VerificationQuery.model_validate({
        "id": "q", "scope": "patient",
        "events": [{"id": "e0", "text": "vancomycin", "kind": "medication"},
                   {"id": "e1", "text": text, "kind": kind}],
        "relations": [{"from": "e0", "to": "e1", "type": "before"}]})


@pytest.fixture(scope="module")
def index(note_pipeline):
    return note_index(NOTE, note_pipeline)


def _phrase_mention(index, text: str):
    query = _query(text)
    [match] = ground_all(index, query)["e1"].matches
    mention = next(o for o in query_mentions(index, query) if o.id == match.occurrence)
    return query, match, mention


def test_the_phrase_binds_and_holds(index) -> None:
    query, match, mention = _phrase_mention(index, "gallbladder removal")
    assert match.basis == BindingBasis("e1", BasisKind.PHRASE, "0-11,16-23")
    bundle = admit(index, query, [Candidate(mention, (match.basis,))])
    assert [i.occurrence for i in bundle.items] == [mention.id] and bundle.unbound == ()


@pytest.mark.parametrize("forged", [
    BindingBasis("e1", BasisKind.PHRASE, "0-11,12-15"),  # "was" fills no slot of the event
    BindingBasis("e1", BasisKind.PHRASE, "0-11"),  # the act is not among the pieces
    BindingBasis("e1", BasisKind.PHRASE, "0-11,16-23|without:removal"),  # not a droppable word
    BindingBasis("e1", BasisKind.PHRASE, "zero-eleven"),
    BindingBasis("e1", BasisKind.TEXT, "gallbladder removal"),  # the mention names the note's words only
])
def test_a_basis_the_notes_words_do_not_make_is_refused(index, forged: BindingBasis) -> None:
    query, _, mention = _phrase_mention(index, "gallbladder removal")
    bundle = admit(index, query, [Candidate(mention, (forged,))])
    assert bundle.items == () and bundle.unbound == ((mention.id, forged.describe()),)


def test_the_same_pieces_do_not_bind_another_event(index) -> None:
    _, match, mention = _phrase_mention(index, "gallbladder removal")
    other = _query("spleen removal")
    # without the provenance check (no `known`), the binding re-check alone refuses it
    bundle = contract(other, index.patient, [Candidate(mention, (match.basis,))], index.record.resources,
                      index.documents, index.episodes, index.lexicon)
    assert bundle.items == () and bundle.rejected_counts == {"binding": 1}


def test_a_left_out_modifier_is_recorded_in_the_basis(index) -> None:
    query, match, mention = _phrase_mention(index, "laparoscopic appendix removal")
    assert match.basis is not None and match.basis.detail.endswith("|without:laparoscopic")
    assert admit(index, query, [Candidate(mention, (match.basis,))]).items != ()


CLASS_NOTE = ("Assessment: pneumonia. Plan: continue current antibiotics. Her metoprolol was restarted at "
              "12.5 mg twice daily.")


@pytest.fixture(scope="module")
def class_index(note_pipeline):
    return note_index(CLASS_NOTE, note_pipeline, drug="heparin 5000 units", drug_id="hep")


def _medication(text: str) -> VerificationQuery:
    return VerificationQuery.model_validate({
        "id": "q", "scope": "patient",
        "events": [{"id": "e0", "text": text, "kind": "medication"}, {"id": "e1", "text": "pneumonia", "kind": "condition"}],
        "relations": [{"from": "e0", "to": "e1", "type": "overlaps"}]})


def test_a_class_named_in_the_note_binds_the_class_not_a_member(class_index) -> None:
    [match] = ground_all(class_index, _medication("antibiotics"))["e0"].matches
    assert class_index.occurrences[match.occurrence].extra_value("literal") == "antibiotics"
    assert match.basis == BindingBasis("e0", BasisKind.LEXICON, "class:antibiotic")
    assert admit(class_index, _medication("antibiotics"), [Candidate(class_index.occurrences[match.occurrence],
                                                                     (match.basis,))]).items != ()
    assert ground_all(class_index, _medication("ceftriaxone"))["e0"].matches == ()  # the class is no member


@pytest.mark.parametrize("text", ["metoprolol 12.5 mg", "Lopressor 12.5 mg twice daily", "beta blocker"])
def test_a_dose_or_brand_names_the_drug(class_index, text: str) -> None:
    matches = ground_all(class_index, _medication(text))["e0"].matches
    named = [m for m in matches if m.reason != "phrase"]
    assert [class_index.occurrences[m.occurrence].extra_value("literal") for m in named] == ["metoprolol"]


def test_a_dose_the_note_tells_with_the_drug_is_found_as_a_phrase_too(class_index) -> None:
    query = _medication("metoprolol 12.5 mg")
    [phrase] = [m for m in ground_all(class_index, query)["e0"].matches if m.reason == "phrase"]
    mention = next(o for o in query_mentions(class_index, query) if o.id == phrase.occurrence)
    assert CLASS_NOTE[mention.source.start:mention.source.end] == "metoprolol was restarted at 12.5 mg"


NAMED_NOTE = ("Problems: type 1 diabetes, insulin pump. History: she was given vancomycin in May. "
              "Last week the pump malfunctioned and she was admitted.")


@pytest.fixture(scope="module")
def named_index(note_pipeline):
    return note_index(NAMED_NOTE, note_pipeline)


def _named(named_index):
    query = _query("insulin pump malfunction")
    query = query.model_copy(update={"events": [query.events[0], query.events[1].model_copy(update={"kind": "condition"})]})
    [match] = ground_all(named_index, query)["e1"].matches
    mention = next(o for o in query_mentions(named_index, query) if o.id == match.occurrence)
    return query, match, mention


def test_leading_words_the_note_named_earlier_bind_and_hold(named_index) -> None:
    query, match, mention = _named(named_index)
    start = NAMED_NOTE.index("insulin pump")
    assert NAMED_NOTE[mention.source.start:mention.source.end] == "pump malfunctioned"
    assert match.basis == BindingBasis("e1", BasisKind.PHRASE, f"0-4,5-18|without:insulin|named:{start}-{start + 12}")
    bundle = admit(named_index, query, [Candidate(mention, (match.basis,))])
    assert [i.occurrence for i in bundle.items] == [mention.id] and bundle.unbound == ()


@pytest.mark.parametrize("detail", [
    "0-4,5-18|without:insulin|named:0-8",  # the note names no insulin pump there
    "0-4,5-18|without:insulin",  # 'insulin' is no droppable word: without naming, nothing left it out
    "0-4,5-18|without:pump|named:{start}-{end}",  # the noun itself is never left out
    "0-4,5-18|without:insulin|named:{start}-{end}|seen:1",  # a field the basis does not have
])
def test_a_named_basis_the_note_does_not_hold_is_refused(named_index, detail: str) -> None:
    query, _, mention = _named(named_index)
    start = NAMED_NOTE.index("insulin pump")
    forged = BindingBasis("e1", BasisKind.PHRASE, detail.format(start=start, end=start + 12))
    bundle = admit(named_index, query, [Candidate(mention, (forged,))])
    assert bundle.items == () and bundle.unbound == ((mention.id, forged.describe()),)


# A query that names a lexicon concept is found in the note's other forms too, as a literal one is:
# the concept's synonyms are matched as written, the query's own words as a phrase.
CONCEPT_NOTE = ("Hospital course: She was given vancomycin on admission. Thrombosis of a deep vein of the calf "
                "was found on day two. The failure of her heart worsened.")


@pytest.mark.parametrize(("event", "kind", "words"), [
    ("deep vein thrombosis", "condition", "Thrombosis of a deep vein"),
    ("heart failure", "condition", "failure of her heart"),
])
def test_a_concept_query_is_found_split_and_reordered(note_pipeline, event: str, kind: str, words: str) -> None:
    index = note_index(CONCEPT_NOTE, note_pipeline)
    query = _query(event, kind)
    assert index.lexicon.expand(event, kind).via == "concept"
    [match] = ground_all(index, query)["e1"].matches
    mention = next(o for o in query_mentions(index, query) if o.id == match.occurrence)
    assert match.reason == "phrase" and CONCEPT_NOTE[mention.source.start:mention.source.end] == words
    bundle = admit(index, query, [Candidate(mention, (match.basis,))])
    assert [i.occurrence for i in bundle.items] == [mention.id]


# The adjective or verb a note states a finding with is a synonym of its concept (lexicon.json).
ADJECTIVE_NOTE = ("Hospital course: She was given vancomycin on admission. She became dyspneic and nauseated, "
                  "was delirious overnight, and was dialyzed on day two.")


@pytest.mark.parametrize(("event", "kind", "words"), [
    ("shortness of breath", "condition", "dyspneic"),
    ("nausea", "condition", "nauseated"),
    ("delirium", "condition", "delirious"),
    ("dialysis", "procedure", "dialyzed"),
])
def test_a_finding_stated_as_an_adjective_or_verb_is_found(note_pipeline, event: str, kind: str, words: str) -> None:
    index = note_index(ADJECTIVE_NOTE, note_pipeline)
    query = _query(event, kind)
    spans = [m.occurrence.rsplit("#s", 1)[1].split("-") for m in ground_all(index, query)["e1"].matches]
    assert [ADJECTIVE_NOTE[int(a):int(b)] for a, b in spans] == [words]
