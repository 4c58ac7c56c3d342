"""The one loader of the rule files in `nlp/resources/` (importlib.resources): read a JSON object
and hand it to the typed builder of that file, so a malformed file fails with its name."""

from __future__ import annotations

import json
from collections.abc import Callable
from importlib import resources
from typing import Any, TypeVar

__all__ = ["load_rule_file", "read_rule_file"]

_PACKAGE = "medeventgraph.nlp"
T = TypeVar("T")


def read_rule_file(name: str) -> dict[str, Any]:
    """The JSON object in nlp/resources/<name>."""
    raw = json.loads(resources.files(_PACKAGE).joinpath("resources", name).read_text(encoding="utf-8"))
    if not isinstance(raw, dict):
        raise TypeError(f"nlp/resources/{name}: a JSON object expected")
    return raw


def load_rule_file(name: str, build: Callable[[dict[str, Any]], T]) -> T:
    """`build` (the file's typed model) applied to nlp/resources/<name>; a missing or mistyped
    field is reported with the file's name."""
    try:
        return build(read_rule_file(name))
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"nlp/resources/{name}: {exc!r}") from exc
