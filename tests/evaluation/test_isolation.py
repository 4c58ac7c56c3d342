"""Labels never reach a method; the release audit runs and passes on generated protocols."""

from __future__ import annotations

import orjson
import pytest
from medeventgraph.evaluation.audit import FORBIDDEN_FIELDS, audit, key_paths
from medeventgraph.evaluation.cases import Case, Variant
from medeventgraph.evaluation.data import load_corpus
from medeventgraph.evaluation.orchestrate import SMOKE_CAPS
from medeventgraph.evaluation.protocols import generate
from medeventgraph.evaluation.runner import split_patients
from medeventgraph.evaluation.variants import input_record


@pytest.fixture(scope="module")
def generated(shared_data):
    corpus = load_corpus(shared_data, max_patients=2)
    return corpus, generate(list(corpus.patients.values()), SMOKE_CAPS, seed=3)


def test_verifier_inputs_carry_no_label_fields(generated):
    corpus, pairs = generated
    assert pairs
    gold_values = set()
    for case, gold in pairs:
        assert not (set(vars(case)) & FORBIDDEN_FIELDS)
        q = case.query.dump()  # the VerificationQuery JSON handed to every method
        assert not {p.rsplit(".", 1)[-1] for p in key_paths(q)} & FORBIDDEN_FIELDS
        gold_values.add(gold.expected)
        record = input_record(case, corpus)  # the resources handed to the verifier
        blob = orjson.dumps(list(record.resources.values())[:200]).decode().lower()
        assert '"label"' not in blob and '"gold"' not in blob and '"expected"' not in blob
        assert case.id.split("-", 1)[1].isalnum()  # opaque hash id
    assert {"supported", "refuted", "insufficient"} >= gold_values


def test_case_has_no_gold_attribute():
    assert "binary" not in Case.__dataclass_fields__ and "expected" not in Case.__dataclass_fields__


def test_release_audit_passes(generated):
    corpus, pairs = generated
    splits = split_patients(corpus, seed=3)
    result = audit(pairs, splits, indexes={})
    assert result["gold_only_in_labels"]["pass"]
    assert result["shared_schema"]["pass"], result["shared_schema"]
    assert result["patient_disjoint_splits"]["pass"]


def test_audit_catches_a_leak(generated):
    corpus, pairs = generated
    case, gold = pairs[0]
    leaky = Case(case.id, case.protocol, case.dataset, case.patient, case.query,
                 Variant("mask_event", (("expected", "supported"),)))
    assert not audit([(leaky, gold)], split_patients(corpus, seed=3), indexes={})["gold_only_in_labels"]["pass"]
