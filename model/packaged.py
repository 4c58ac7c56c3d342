"""The one loader of the data files packaged inside the project: `<package>/resources/<name>`.

Every layer reads its rule tables, wording, prompts and page templates through here (model imports
nothing internal, so any layer may), so where a packaged file lives and how it is decoded is said
once. A data file is an edge: `packaged_model` validates it into its typed model (pydantic checks
and coerces the fields the model names), and `packaged_built` hands a JSON object to the typed
builder a module writes by hand; either way a malformed file fails at load naming the file, never
later inside a verdict. Nothing here caches: the callers cache what they parse (most once per
process), so loading stays a pure read.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any, TypeVar

from pydantic import TypeAdapter, ValidationError

__all__ = ["packaged_built", "packaged_bytes", "packaged_model", "packaged_object", "packaged_path", "packaged_text"]

T = TypeVar("T")
_FOLDER = "resources"


def _where(package: str, name: str) -> str:
    return f"{package}/{_FOLDER}/{name}"


def packaged_bytes(package: str, name: str) -> bytes:
    """The bytes of `<package>/resources/<name>` (`package` is a dotted import name)."""
    return resources.files(package).joinpath(_FOLDER, name).read_bytes()


def packaged_text(package: str, name: str) -> str:
    """`<package>/resources/<name>` as UTF-8 text."""
    return packaged_bytes(package, name).decode("utf-8")


def packaged_object(package: str, name: str) -> dict[str, Any]:
    """The JSON object in `<package>/resources/<name>`."""
    raw = json.loads(packaged_text(package, name))
    if not isinstance(raw, dict):
        raise TypeError(f"{_where(package, name)}: a JSON object expected")
    return raw


def packaged_model(package: str, name: str, shape: type[T]) -> T:
    """`<package>/resources/<name>` (JSON) validated as `shape` (a pydantic model or a dataclass).
    A validation error keeps its type and field names and gains a note naming the file."""
    try:
        return TypeAdapter(shape).validate_json(packaged_bytes(package, name))
    except ValidationError as exc:
        exc.add_note(_where(package, name))
        raise


def packaged_built(package: str, name: str, build: Callable[[dict[str, Any]], T]) -> T:
    """`build` (the file's typed builder) applied to the JSON object in `<package>/resources/<name>`;
    a missing or mistyped field is reported with the file's name."""
    try:
        return build(packaged_object(package, name))
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"{_where(package, name)}: {exc!r}") from exc


def packaged_path(package: str, name: str) -> Path:
    """Where `<package>/resources/<name>` sits on disk: for the evaluation's `--freeze`, which
    rewrites a packaged table in the source tree (an editable install), not for reading."""
    return Path(str(resources.files(package).joinpath(_FOLDER, name)))
