"""Limits on the shape of parsed JSON that every later stage relies on, checked without recursion.

The record is hashed with orjson (index cache key, evidence bundle hash), which refuses strings
with lone UTF-16 surrogates, integers outside the 64-bit range, keys that are not strings and
nesting past its own recursion limit; Python code that walks JSON recursively fails on deep
nesting too. Input that breaks one of these rules is refused here, naming the rule and the JSON
path (never the value), before it can fail somewhere deep inside as an exception.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import orjson

__all__ = ["ShapeProblem", "shape_problem"]

_INT_MIN, _INT_MAX = -(2**63), 2**64 - 1  # what orjson encodes
_ELEMENT_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")
_PATH_PARTS = 8  # a problem's path is cut after this many parts: enough to find it, short to read


@dataclass(frozen=True, slots=True)
class ShapeProblem:
    path: str  # JSON path inside the checked value, e.g. "extension[0].valueInteger"
    rule: str  # the rule broken, e.g. "nested deeper than 100 levels"
    code: str  # FHIR issue type


def _render(link: tuple[Any, ...] | None) -> str:
    """The path as text; a key that is not an element name (it may hold anything) shows as `*`."""
    parts: list[str] = []
    while link is not None:
        link, key = link
        if isinstance(key, int):
            parts.append(f"[{key}]")
        else:
            parts.append(f".{key}" if _ELEMENT_NAME.fullmatch(key) else ".*")
    parts.reverse()
    cut = parts[:_PATH_PARTS]
    text = "".join(cut).lstrip(".")
    return text + ("…" if len(parts) > len(cut) else "")


def _scalar_problem(value: Any) -> tuple[str, str] | None:
    if isinstance(value, str):
        if not value.isascii():
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                return "string is not valid Unicode (lone UTF-16 surrogate)", "value"
    elif isinstance(value, int) and not isinstance(value, bool) and not _INT_MIN <= value <= _INT_MAX:
        return "integer outside the 64-bit range", "value"
    return None


def _containers_within(value: Any, max_depth: int) -> bool:
    """Fast pass: does the nesting stay within max_depth? (containers only, no paths kept)"""
    stack = [(value, 1)]
    pop, push = stack.pop, stack.append
    while stack:
        node, depth = pop()
        if depth > max_depth:
            return False
        children = node.values() if type(node) is dict else node
        for child in children:
            kind = type(child)
            if kind is dict or kind is list:
                push((child, depth + 1))
    return True


def _encodes(value: Any) -> bool:
    try:
        orjson.dumps(value)
    except orjson.JSONEncodeError:
        return False
    return True


def shape_problem(value: Any, max_depth: int) -> ShapeProblem | None:
    """The first rule `value` breaks, or None. Linear in the size of `value`, iterative.

    The common case (a well-formed resource) costs one container walk and one orjson encode;
    only a value that fails either is walked again with paths to say where."""
    if not isinstance(value, (dict, list)):
        found = _scalar_problem(value)
        return ShapeProblem("", *found) if found else None
    if _containers_within(value, max_depth) and _encodes(value):
        return None
    stack: list[tuple[Any, int, tuple[Any, ...] | None]] = [(value, 1, None)]
    while stack:
        node, depth, link = stack.pop()
        if depth > max_depth:
            return ShapeProblem(_render(link), f"nested deeper than {max_depth} levels", "structure")
        items = node.items() if isinstance(node, dict) else enumerate(node)
        for key, child in items:
            here = (link, key)
            if isinstance(node, dict):
                if not isinstance(key, str):
                    return ShapeProblem(_render(link), "object key is not a string", "structure")
                found = _scalar_problem(key)
                if found:
                    return ShapeProblem(_render(link), f"key: {found[0]}", found[1])
            if isinstance(child, (dict, list)):
                stack.append((child, depth + 1, here))
            else:
                found = _scalar_problem(child)
                if found:
                    return ShapeProblem(_render(here), *found)
    # orjson refused something the rules above do not name (e.g. a value of another type
    # handed in through the Python API)
    return ShapeProblem("", "not encodable as JSON", "structure")
