"""ConText over matched targets: medspaCy's default rules plus ours, read back as Assertions.

The ConText component is built once and run only on cached docs that have target matches.
Attributes are read from the ConText graph's edges (not from span extensions), and the doc's
`user_data` is restored afterwards, so a cached doc carries nothing from one query to the next.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from medeventgraph.occurrence import Assertion
from medspacy.context import ConText
from spacy.language import Language
from spacy.tokens import Doc, Span

from .rules import context_rules

__all__ = ["CATEGORY_FLAGS", "assert_targets", "assertion_from_flags", "build_context"]

CATEGORY_FLAGS = {
    "NEGATED_EXISTENCE": "negated",
    "POSSIBLE_EXISTENCE": "uncertain",
    "HYPOTHETICAL": "hypothetical",
    "HISTORICAL": "historical",
    "FAMILY": "family",
}


def build_context(nlp: Language) -> ConText:
    """A ConText component (not added to `nlp`'s pipe) with default plus package rules."""
    context = ConText(nlp, rules="default", span_attrs=None)
    context.add(context_rules())
    return context


def assertion_from_flags(flags: Iterable[str]) -> Assertion:
    present = set(flags)
    return Assertion(
        negated="negated" in present,
        uncertain="uncertain" in present,
        hypothetical="hypothetical" in present,
        historical="historical" in present,
        family="family" in present,
    )


def assert_targets(context: ConText, doc: Doc, targets: Sequence[Span]) -> list[frozenset[str]]:
    """ConText flags for each target (same order). `targets` must not overlap."""
    if not targets:
        return []
    saved_user_data = dict(doc.user_data)
    saved_ents = doc.ents
    try:
        doc.ents = list(targets)
        context(doc)
        graph = doc._.context_graph
        by_span: dict[tuple[int, int], set[str]] = {}
        for target, modifier in graph.edges:
            flag = CATEGORY_FLAGS.get(modifier.category.upper())
            if flag is not None:
                by_span.setdefault((target.start, target.end), set()).add(flag)
        return [frozenset(by_span.get((t.start, t.end), ())) for t in targets]
    finally:
        doc.ents = saved_ents
        doc.user_data.clear()
        doc.user_data.update(saved_user_data)
