"""Similarity as a binding basis (issue 12): the contract recomputes the claimed score with the
frozen model, so a forged score, a wrong model or an absent model never supports."""

from __future__ import annotations

import pytest
from medeventgraph.core.answer import verify_query
from medeventgraph.core.discover.exhaustive import Discovery
from medeventgraph.core.evidence import similarity
from medeventgraph.core.evidence.binding import BasisKind, BindingBasis
from medeventgraph.core.evidence.contract import Candidate
from medeventgraph.core.index.retrieval import dense_backend
from medeventgraph.core.index.retrieval.dense_backend import dense_available
from medeventgraph.core.query.lexicon import normalize_text
from medeventgraph.core.query.verdict import Label
from medeventgraph.model.settings import Settings

from ..conftest import missing
from .conftest import index_of
from .helpers import pair
from .records import RXNORM, septic_shock_record

S = Settings(notes=False)
PARAPHRASE = pair("vancomycin", "septic shock syndrome", kb="condition")  # the record says "Septic shock"
WRONG = pair("vancomycin", "acute kidney injury", kb="condition")
MODEL = similarity.load_rule().model


@pytest.fixture(scope="module")
def shock():
    return index_of(septic_shock_record(), S)


def _occ(index, rid):
    return next(o for o in index.occurrences.values() if o.source.resource_id == rid)


def _run(index, query, detail: str):
    vanc, septic = _occ(index, "meg-bind-vanc-1"), _occ(index, "meg-bind-shock-1")
    cands = [Candidate(vanc, (BindingBasis("e0", BasisKind.CODE, f"{RXNORM}|11124"),
                              BindingBasis("e0", BasisKind.LEXICON, "vancomycin"))),
             Candidate(septic, (BindingBasis("e1", BasisKind.SIMILARITY, detail),))]
    return verify_query(index, query, S, discover=lambda i, q, s: Discovery(cands, {}))


def _true_score(index, query) -> float:
    septic = _occ(index, "meg-bind-shock-1")
    displays = tuple(normalize_text(d) for d in septic.concept.displays())
    return similarity.best_similarity(MODEL, normalize_text(query.event("e1").text), displays)


@pytest.fixture
def dense_extra():
    if not dense_available():
        missing("the dense extra is not installed (make test installs it)")


def test_an_honest_similarity_basis_binds_a_paraphrase(shock, dense_extra):
    score = _true_score(shock, PARAPHRASE)
    assert score >= similarity.load_rule().threshold
    v = _run(shock, PARAPHRASE, similarity.claim(MODEL, score))
    assert v.verdict is Label.SUPPORTED
    item = next(e for e in v.evidence if "e1" in e.events)
    assert item.basis == [f"e1:similarity:{similarity.claim(MODEL, score)}"]


@pytest.mark.parametrize("forge", [
    lambda s: similarity.claim(MODEL, 0.99),  # a score the model does not give
    lambda s: similarity.claim(MODEL, s + 0.01),  # close, but not what it gives
    lambda s: similarity.claim("some-other-model@1", 0.99),  # a model that is not the frozen one
    lambda s: similarity.claim("some-other-model@1", s),
    lambda s: "0.99",  # no model at all
    lambda s: f"{MODEL}|nan",
])
def test_a_forged_score_or_a_wrong_model_never_supports(shock, dense_extra, forge):
    for query in (WRONG, PARAPHRASE):
        detail = forge(_true_score(shock, query))
        if query is PARAPHRASE and detail == similarity.claim(MODEL, _true_score(shock, query)):
            continue
        v = _run(shock, query, detail)
        assert v.verdict is not Label.SUPPORTED
        assert v.rejected.get("binding") == 1 and any(":similarity:" in u for u in v.unbound)


def test_an_honest_score_below_the_threshold_never_supports(shock, dense_extra):
    score = _true_score(shock, WRONG)  # "Septic shock" vs "acute kidney injury": a real, low score
    assert score < similarity.load_rule().threshold
    v = _run(shock, WRONG, similarity.claim(MODEL, score))
    assert v.verdict is Label.INSUFFICIENT and v.rejected.get("binding") == 1


def test_without_the_model_a_similarity_basis_is_refused(shock, monkeypatch):
    monkeypatch.setattr(dense_backend, "dense_available", lambda: False)
    similarity.clear()
    try:
        for score in (0.95, 0.9999):
            v = _run(shock, PARAPHRASE, similarity.claim(MODEL, score))
            assert v.verdict is Label.INSUFFICIENT and v.rejected.get("binding") == 1
    finally:
        similarity.clear()


def test_the_controller_binds_a_paraphrase_by_similarity_with_the_dense_channel(dense_extra):
    dense = Settings(notes=False, dense=True, discovery="search")  # similarity binds inside the search
    index = index_of(septic_shock_record(), dense)
    v = verify_query(index, PARAPHRASE, dense)
    assert v.verdict is Label.SUPPORTED
    item = next(e for e in v.evidence if "e1" in e.events)
    assert [b.split(":")[1] for b in item.basis] == ["similarity"]
    # The deterministic default, without the dense channel, finds nothing to bind it to.
    assert verify_query(index_of(septic_shock_record(), S), PARAPHRASE, S).verdict is Label.INSUFFICIENT
