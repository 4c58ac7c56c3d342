"""Lab and vital values as events: "creatinine 3.2" binds only a creatinine item whose value is 3.2,
and the contract re-checks that value from the item and the query (basis `value`)."""

from __future__ import annotations

import pytest
from medeventgraph.core.answer import verify_query
from medeventgraph.core.discover.admit import admit
from medeventgraph.core.discover.exhaustive import ground_all
from medeventgraph.core.evidence.binding import BasisKind, BindingBasis, BindingContext, basis_holds
from medeventgraph.core.evidence.contract import Candidate
from medeventgraph.core.query.lexicon import load_lexicon
from medeventgraph.core.query.model import VerificationQuery
from medeventgraph.core.query.value_query import parse_value_query, value_matches
from medeventgraph.model.occurrence import Value
from medeventgraph.model.settings import Settings

from .conftest import note_index

LEX = load_lexicon()
NOTE = ("Hospital course: On admission her creatinine was 1.4 and her white count 18,500. "
        "She was given vancomycin. On day 3 the creatinine rose to 3.2 and the heart rate was in the 50s. "
        "Temperature this morning 38.6. Blood pressure 84/46 after the dose.")


def _query(text: str, kind: str) -> VerificationQuery:
    return VerificationQuery.model_validate({
        "id": "q", "scope": "patient",
        "events": [{"id": "e0", "text": "vancomycin", "kind": "medication"}, {"id": "e1", "text": text, "kind": kind}],
        "relations": [{"from": "e0", "to": "e1", "type": "before"}]})


@pytest.fixture(scope="module")
def index(note_pipeline):
    return note_index(NOTE, note_pipeline)


@pytest.mark.parametrize(("text", "kind", "literal"), [
    ("creatinine 3.2", "lab", "creatinine rose to 3.2"),
    ("creatinine 1.4", "lab", "creatinine was 1.4"),
    ("WBC 18.5", "lab", "white count 18,500"),  # 18,500 cells/uL is 18.5 thousand
    ("heart rate in the 50s", "vital", "heart rate was in the 50s"),
    ("temperature 101.5", "vital", "Temperature this morning 38.6"),  # 38.6 C is 101.48 F
    ("BP 84/46", "vital", "Blood pressure 84/46"),
])
def test_a_value_event_binds_the_mention_with_that_value(index, text: str, kind: str, literal: str) -> None:
    grounding = ground_all(index, _query(text, kind))["e1"]
    assert [index.occurrences[m.occurrence].extra_value("literal") for m in grounding.matches] == [literal]
    assert {m.basis.kind for m in grounding.matches if m.basis} == {BasisKind.VALUE}


@pytest.mark.parametrize("text", ["creatinine 3.0", "creatinine 3", "creatinine 32", "WBC 18", "heart rate 62",
                                  "BP 84/50", "potassium 3.2"])
def test_another_value_binds_nothing(index, text: str) -> None:
    kind = "vital" if text.startswith(("heart", "BP")) else "lab"
    assert ground_all(index, _query(text, kind))["e1"].matches == ()


def test_a_forged_value_basis_is_refused_and_reported(index) -> None:
    """Discovery claims the 1.4 mention for "creatinine 3.2" with the query's own detail: the
    contract reads the item's value again and refuses the claim."""
    query = _query("creatinine 3.2", "lab")
    wrong = next(o for o in index.occurrences.values() if o.extra_value("literal") == "creatinine was 1.4")
    detail = parse_value_query("creatinine 3.2", LEX).detail  # type: ignore[union-attr]
    forged = BindingBasis("e1", BasisKind.VALUE, detail)
    bundle = admit(index, query, [Candidate(wrong, (forged,))])
    assert bundle.items == () and bundle.unbound == ((wrong.id, forged.describe()),)
    # and a detail naming another value than the query's never holds, whatever the item
    right = next(o for o in index.occurrences.values() if o.extra_value("literal") == "creatinine rose to 3.2")
    ctx = BindingContext.of(query, LEX)
    probe = admit(index, query, [Candidate(right, (forged,))]).items[0]
    assert basis_holds(forged, probe, ctx)
    assert not basis_holds(BindingBasis("e1", BasisKind.VALUE, "creatinine|1.4"), probe, ctx)


def test_a_value_event_orders_like_any_event(index) -> None:
    v = verify_query(index, _query("creatinine 3.2", "lab"), Settings())
    bound = [e for e in v.evidence if "e1" in e.events]
    assert bound and all(b.startswith("e1:value:creatinine|3.2") for e in bound for b in e.basis if b.startswith("e1"))


def test_precision_and_units() -> None:
    one = parse_value_query("creatinine 1", LEX)
    assert one is not None
    assert value_matches(one, Value(1.0, "mg/dL", "1.0")) and value_matches(one, Value(88.4, "umol/L", "88.4"))
    assert not value_matches(one, Value(1.2, "mg/dL", "1.2"))  # 1.2 is a finer, other value
    assert not value_matches(one, Value(1.0, "g/L", "1.0"))  # a unit the analyte does not have: never guessed
    decade = parse_value_query("heart rate in the 50s", LEX)
    assert decade is not None and value_matches(decade, Value(None, "/min", "in the low 50s"))
    assert not value_matches(decade, Value(None, "/min", "in the 60s"))


@pytest.mark.parametrize(("text", "left_out"), [("fasting glucose 94", ("fasting",)), ("glucose 94", ())])
def test_words_outside_the_value_are_recorded_as_left_out(text: str, left_out: tuple[str, ...]) -> None:
    parsed = parse_value_query(text, LEX)
    assert parsed is not None and parsed.left_out == left_out
    assert parsed.detail.endswith("|without:fasting") == bool(left_out)


@pytest.mark.parametrize("text", ["creatinine", "urine creatinine 50", "creatinine 3.2 after the second vancomycin dose",
                                  "potassium 20 mEq", "creatinine rose from 1.2 to 3.2"])
def test_texts_that_state_no_one_value_are_no_value_query(text: str) -> None:
    assert parse_value_query(text, LEX) is None
