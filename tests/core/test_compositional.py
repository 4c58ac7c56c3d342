"""Three-event chains and hidden intermediates on shared data, checkable in the timeline."""

from __future__ import annotations

from medeventgraph.core.answer import verify_query
from medeventgraph.core.query.verdict import Label
from medeventgraph.model.settings import Settings

from .helpers import chain, pair

S = Settings(notes=False)
AKI_CHAIN = [("vancomycin", "medication"), ("creatinine rise", "derived"), ("acute kidney injury", "condition")]


def test_vancomycin_creatinine_rise_aki_chain_supported(aki):
    v = verify_query(aki, chain(AKI_CHAIN), S)
    assert v.verdict is Label.SUPPORTED, v.failure
    assert [r.timing for r in v.relations] == ["compatible", "compatible"]
    rise = v.relations[0].pair[1]
    assert rise.startswith("derived/kdigo-creatinine-rise/") and v.relations[1].pair[0] == rise
    assert v.relations[1].pair[1] == "Condition/cond-13e95cc4e4e1"  # AKI onset 2024-06-27 08:12
    assert v.search["discovery"] == "exhaustive"
    searched = verify_query(aki, chain(AKI_CHAIN), S.model_copy(update={"discovery": "search"}))
    assert searched.verdict is Label.SUPPORTED and searched.search["depths"]


def test_reversed_chain_link_is_not_supported(aki):
    reversed_chain = list(reversed(AKI_CHAIN))
    v = verify_query(aki, chain(reversed_chain), S)
    assert v.verdict is not Label.SUPPORTED


def test_hidden_intermediate_reconstructs_a_derived_step(aki):
    q = chain([AKI_CHAIN[0], ("", "derived"), AKI_CHAIN[2]], hidden=(1,))
    default = verify_query(aki, q, S)
    assert default.verdict is Label.SUPPORTED and default.relations[0].pair[1].startswith("derived/")
    v = verify_query(aki, q, S.model_copy(update={"discovery": "search"}))  # the search reports its chains
    chains = v.search["chains"]
    assert 1 <= len(chains["top"]) <= 20
    assert all(t["source_bound"] for t in chains["transitions"])
    assert v.verdict is Label.SUPPORTED
    hidden_node = chains["best"]["path"]["e1"]
    assert hidden_node.startswith("derived/")


def test_aspirin_clopidogrel_heparin_on_boyce(boyce):
    v = verify_query(boyce, chain([("aspirin", "medication"), ("clopidogrel", "medication"), ("heparin", "medication")]), S)
    # The record gives heparin before aspirin and clopidogrel: a refuted link refutes the chain.
    assert v.verdict in (Label.REFUTED, Label.CONFLICTING)
    assert any(r.timing == "incompatible" for r in v.relations)


def test_sepsis_chain_on_lance(lance):
    v = verify_query(lance, chain([("sepsis", "condition"), ("mechanical ventilation", "procedure"),
                                   ("norepinephrine", "medication")], scope="patient"), S)
    assert v.verdict in (Label.SUPPORTED, Label.INSUFFICIENT)
    assert len(v.relations) == 2 and all(r.pair for r in v.relations)
    assert verify_query(lance, pair("vancomycin", "norepinephrine"), S).verdict is Label.SUPPORTED
