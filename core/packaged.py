"""The one typed loader for the small JSON data files inside core/resources.

A data file is an edge: it is validated into the frozen dataclass that holds it (pydantic
checks and coerces the fields it names and ignores the provenance fields beside them), so a
malformed file fails at load with the field it lacks, never later inside a verdict.
"""

from __future__ import annotations

from importlib import resources
from typing import TypeVar

from pydantic import TypeAdapter

__all__ = ["load_resource"]

T = TypeVar("T")


def load_resource(name: str, shape: type[T]) -> T:
    """`core/resources/<name>` (JSON) as a `shape` (a dataclass)."""
    raw = resources.files("medeventgraph.core").joinpath("resources", name).read_bytes()
    return TypeAdapter(shape).validate_json(raw)
