"""Files, folders, NDJSON (plain or gzip) and parsed JSON -> raw resources with their locations.

Nothing here interprets a resource beyond "is it a Bundle": that is ingest's job. A file that
cannot be parsed becomes an Issue naming the file; a path that cannot be read at all raises
InputError, since the caller asked for it explicitly.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import orjson
from medeventgraph.fhir_adapters.inflate import TooLarge, fits, inflated_pieces, lines_of
from medeventgraph.model.outcome import InputError, Issue

__all__ = ["FILE_SUFFIXES", "RawItem", "items_from_json", "parse_json_bytes", "read_paths", "shown"]

FILE_SUFFIXES = (".json", ".ndjson", ".json.gz", ".ndjson.gz")
_MAX_BUNDLE_DEPTH = 8
DEFAULT_MAX_INFLATED = 256 * 1024 * 1024


class RawItem:
    """One resource as found: the JSON value, where it was, and its Bundle fullUrl if any."""

    __slots__ = ("full_url", "location", "resource")

    def __init__(self, resource: Any, location: str, full_url: str | None = None):
        self.resource = resource
        self.location = location
        self.full_url = full_url


def _bundle_items(bundle: dict[str, Any], prefix: str, out: list[RawItem], issues: list[Issue],
                  depth: int) -> None:
    entries = bundle.get("entry")
    if entries is None:
        return
    base = f"{prefix}.entry" if prefix else "Bundle.entry"
    if not isinstance(entries, list):
        issues.append(Issue("error", "structure", f"{base}: is not an array"))
        return
    for i, entry in enumerate(entries):
        loc = f"{base}[{i}]"
        if not isinstance(entry, dict):
            issues.append(Issue("error", "structure", f"{loc}: entry is not an object"))
            continue
        res = entry.get("resource")
        full_url = entry.get("fullUrl")
        if not isinstance(full_url, str):
            full_url = None
        if res is None:
            request = entry.get("request")
            method = request.get("method") if isinstance(request, dict) else None
            if method != "DELETE" and "response" not in entry:
                issues.append(Issue("warning", "required", f"{loc}: entry has no resource"))
            continue
        if isinstance(res, dict) and res.get("resourceType") == "Bundle" and depth < _MAX_BUNDLE_DEPTH:
            _bundle_items(res, f"{loc}.resource", out, issues, depth + 1)
            continue
        out.append(RawItem(res, loc, full_url))


def items_from_json(data: Any, location: str = "") -> tuple[list[RawItem], list[Issue]]:
    """A Bundle, a single resource, or a list of Bundles/resources (a CDS Hooks prefetch)."""
    out: list[RawItem] = []
    issues: list[Issue] = []
    if isinstance(data, list):
        for i, item in enumerate(data):
            loc = f"{location}[{i}]"
            if isinstance(item, dict) and item.get("resourceType") == "Bundle":
                _bundle_items(item, loc, out, issues, 1)
            else:
                out.append(RawItem(item, loc))
    elif isinstance(data, dict) and data.get("resourceType") == "Bundle":
        _bundle_items(data, location, out, issues, 1)
    else:
        out.append(RawItem(data, location))
    return out, issues


def shown(path: Path | str) -> str:
    """A path as text that any output can encode: bytes of a file name that are not UTF-8
    (Python keeps them as lone surrogates) show as U+FFFD."""
    text = str(path)
    if text.isascii():
        return text
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def parse_json_bytes(raw: bytes | bytearray | memoryview) -> Any:
    """orjson's parse; where orjson refuses text that is JSON apart from lone UTF-16 surrogates
    in escapes (`"\\ud800"`), the standard library's parser reads it, so that ingest's shape
    check names the resource holding one and skips only that resource, not the whole file.
    Raises orjson.JSONDecodeError for anything else that is not JSON."""
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError as refused:
        try:
            return json.loads(bytes(raw).decode("utf-8"), parse_constant=_no_constant)
        except (ValueError, RecursionError):  # UnicodeDecodeError included: not UTF-8 at all
            raise refused from None


def _suffix_ok(p: Path) -> bool:
    name = p.name.lower()
    return name.endswith(FILE_SUFFIXES)


def _read_bytes(p: Path) -> bytes:
    try:
        return p.read_bytes()
    except OSError as e:
        raise InputError(Issue("fatal", "exception", f"{shown(p)}: cannot be read ({type(e).__name__})")) from None


def _ndjson(lines: Iterable[bytes | bytearray], name: str, out: list[RawItem], issues: list[Issue]) -> None:
    for n, line in enumerate(lines, start=1):
        if not line or line.isspace():  # isspace, not strip: strip copies every line
            continue
        loc = f"{name} line {n}"
        try:
            value = parse_json_bytes(line)
        except orjson.JSONDecodeError:
            issues.append(Issue("error", "structure", f"{loc}: malformed JSON; line skipped"))
            continue
        items, item_issues = items_from_json(value, loc)
        out.extend(items)
        issues.extend(item_issues)


def _read_gzip(p: Path, data: bytes, out: list[RawItem], issues: list[Issue], max_inflated: int) -> None:
    """A .gz file: measured first when it could pass the cap, then NDJSON read line by line as
    it inflates (only the parsed resources are kept) or a JSON document inflated to parse."""
    found: list[RawItem] = []
    found_issues: list[Issue] = []
    try:
        fits(data, max_inflated)
        if p.name.lower().removesuffix(".gz").endswith(".ndjson"):
            _ndjson(lines_of(inflated_pieces(data, max_inflated)), shown(p.name), found, found_issues)
        else:
            document = bytearray()
            for piece in inflated_pieces(data, max_inflated):
                document += piece
            _read_document(p, document, found, found_issues)
    except TooLarge:
        issues.append(Issue("error", "too-long", f"{shown(p)}: decompresses to more than {max_inflated} bytes "
                                                 "(max_inflated_bytes); skipped"))
        return
    except (OSError, EOFError, zlib.error):
        issues.append(Issue("error", "structure", f"{shown(p)}: not a readable gzip file; skipped"))
        return
    out.extend(found)
    issues.extend(found_issues)


def _read_file(p: Path, out: list[RawItem], issues: list[Issue], max_inflated: int) -> None:
    data = _read_bytes(p)
    if p.name.lower().endswith(".gz") or data[:2] == b"\x1f\x8b":
        _read_gzip(p, data, out, issues, max_inflated)
    elif p.name.lower().endswith(".ndjson"):
        _ndjson(data.split(b"\n"), shown(p.name), out, issues)
    else:
        _read_document(p, data, out, issues)


def _read_document(p: Path, data: bytes | bytearray, out: list[RawItem], issues: list[Issue]) -> None:
    """A JSON file: a Bundle, a resource or a list of them (or NDJSON named .json)."""
    try:
        value = parse_json_bytes(data)
    except orjson.JSONDecodeError:
        # Some exports name NDJSON files .json; one resource per line still parses line by line.
        lines = [ln for ln in data.split(b"\n") if ln.strip()]
        if len(lines) > 1 and all(ln.lstrip().startswith(b"{") for ln in lines[:3]):
            _ndjson(data.split(b"\n"), shown(p.name), out, issues)
        else:
            issues.append(Issue("error", "structure", f"{shown(p)}: malformed JSON; file skipped"))
        return
    if isinstance(value, dict) and "resourceType" not in value:
        if "output" in value and "transactionTime" in value:
            issues.append(Issue("information", "informational", f"{shown(p)}: Bulk Data manifest; skipped"))
        else:
            issues.append(Issue("warning", "structure", f"{shown(p)}: not a FHIR resource (no resourceType); skipped"))
        return
    if not isinstance(value, (dict, list)):
        issues.append(Issue("warning", "structure", f"{shown(p)}: not a FHIR resource; skipped"))
        return
    items, item_issues = items_from_json(value)
    out.extend(items)
    issues.extend(item_issues)


def read_paths(paths: Iterable[str | Path], *,
               max_inflated_bytes: int = DEFAULT_MAX_INFLATED) -> tuple[list[RawItem], list[Issue]]:
    out: list[RawItem] = []
    issues: list[Issue] = []
    for raw_path in paths:
        p = Path(raw_path)
        if p.is_dir():
            try:
                files = sorted(f for f in p.rglob("*") if f.is_file() and _suffix_ok(f))
            except OSError as e:
                raise InputError(Issue("fatal", "exception", f"{shown(p)}: cannot be listed ({type(e).__name__})")) from None
            for f in files:
                _read_file(f, out, issues, max_inflated_bytes)
        elif p.is_file():
            _read_file(p, out, issues, max_inflated_bytes)
        else:
            raise InputError(Issue("fatal", "not-found", f"{shown(p)}: no such file or folder"))
    return out, issues
