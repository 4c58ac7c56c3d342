"""A query's words keep the kind the question gives them where the lexicon reads another kind
at the same span: "chemotherapy" asked as a procedure where the lexicon reads the drug class."""

from __future__ import annotations

import pytest
from medeventgraph.core.answer import verify_query
from medeventgraph.core.discover.exhaustive import query_mentions
from medeventgraph.core.query.model import VerificationQuery
from medeventgraph.model.settings import Settings

from .conftest import note_index

# written for this test
NOTE = ("History of present illness: She had anemia and received a transfusion. She then received four "
        "cycles of chemotherapy and subsequently developed neutropenia.")


def _query(text: str, kind: str | None, other: str, rel: str) -> VerificationQuery:
    return VerificationQuery.model_validate({
        "id": "q", "scope": "patient",
        "events": [{"id": "e0", "text": text} | ({"kind": kind} if kind else {}),
                   {"id": "e1", "text": other, "kind": "condition"}],
        "relations": [{"from": "e0", "to": "e1", "type": rel}]})


@pytest.fixture(scope="module")
def index(note_pipeline):
    return note_index(NOTE, note_pipeline)


@pytest.mark.parametrize(("text", "kind", "other", "rel"), [
    ("chemotherapy", "procedure", "neutropenia", "before"),
    ("chemotherapy", "medication", "neutropenia", "before"),
    ("transfusion", "medication", "anemia", "after"),
    ("transfusion", "procedure", "anemia", "after"),
])
def test_either_kind_of_a_therapy_is_found(index, text, kind, other, rel) -> None:
    v = verify_query(index, _query(text, kind, other, rel), Settings(notes=True))
    assert v.verdict.value == "supported", v.relations[0].explanation
    (cited,) = {(e.source.start, e.source.end) for e in v.evidence if e.events == ["e0"] and e.polarity == "supports"}
    assert NOTE[cited[0]:cited[1]].lower() == text


def test_the_lexicons_kind_keeps_its_id_and_the_querys_kind_gets_its_own(index) -> None:
    held = {o.id: o for o in index.occurrences.values() if o.source.start is not None}
    mentions = query_mentions(index, _query("chemotherapy", "procedure", "neutropenia", "before"))
    (own,) = [m for m in mentions if NOTE[m.source.start:m.source.end] == "chemotherapy"]
    base = own.id.removesuffix("/procedure")
    assert own.id != base and held[base].kind.value != "procedure"
    assert (own.source.start, own.source.end) == (held[base].source.start, held[base].source.end)


def test_a_question_without_a_kind_takes_the_lexicons_reading(index) -> None:
    mentions = query_mentions(index, _query("transfusion", None, "anemia", "after"))
    assert all("/" not in m.id.partition("#")[2] for m in mentions)  # no id of its own
