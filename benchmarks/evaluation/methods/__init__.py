"""The evaluation's methods. `registry()` is the one way to read them: the registry is filled
by importing the modules that define them, which a caller that only reads results (the
report) would otherwise have to remember to do."""

from __future__ import annotations

__all__ = ["registry"]


def registry() -> dict:
    from medeventgraph.evaluation.methods import baselines, operators, pipeline  # noqa: F401  (they register)
    from medeventgraph.evaluation.methods.base import METHODS

    return METHODS
