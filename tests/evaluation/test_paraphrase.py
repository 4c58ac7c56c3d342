"""T11's renaming rule: inverted names, and only where the rule applies."""

from __future__ import annotations

import pytest
from medeventgraph.evaluation.protocol_paraphrase import GENERIC, invert


@pytest.mark.parametrize(("term", "renamed"), [
    ("acute bronchitis", "bronchitis, acute"),
    ("acute viral pharyngitis", "pharyngitis, acute viral"),
    ("medication reconciliation", "reconciliation, medication"),
])
def test_inverted_form(term, renamed):
    assert invert(term) == renamed


@pytest.mark.parametrize("term", ["sepsis", "assessment of anxiety", "sodium fluoride 0.0272 mg/mg oral gel",
                                  "potassium moles/volume in serum or plasma", "a b c d e"])
def test_the_rule_leaves_other_terms_alone(term):
    assert invert(term) is None


def test_generic_replanning_has_no_failure_specific_edit():
    assert {tuple(sorted(e.items())) for e in GENERIC.values()} == {(("more_hits", 2), ("widen", 2.0))}
