"""A finding the note takes back is denied: sentences written for this test."""

from __future__ import annotations

import pytest
from medeventgraph.model.occurrence import Kind
from medeventgraph.nlp import TargetTerm

from .conftest import make_note

FRACTURE = TargetTerm("hip fracture", "hip fracture", Kind.CONDITION, "query")


@pytest.mark.parametrize(("text", "negated"), [
    ("A hip fracture was ruled out by MRI.", True),
    ("She had a hip fracture; the wrist fracture was found not to be the case.", False),
    ("She had a hip fracture in 2010.", False),
])
def test_a_retracted_finding_is_negated(pipeline, text, negated):
    (mention,) = pipeline.mentions([make_note(text)], [FRACTURE])
    assert mention.assertion.negated is negated
