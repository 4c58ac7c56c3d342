"""One streaming pass over a Bulk Data export (or a folder of Bundles) into a Parquet spool.

Each resource becomes one row: patient (null for shared resources), key ("Type/id"), Bundle
full URL, location (file and line, for issues), latest date (for --since) and its JSON bytes.
Only one line (or one Bundle file) is in memory at a time; rows go to Parquet in small
batches. Grouping by patient is then a query over the spool (DuckDB locally, Ray Data on a
cluster). A malformed line or resource becomes an Issue naming file, line and rule, and the
pass goes on.
"""

from __future__ import annotations

import gzip
import os
import shutil
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, cast

import orjson
import pyarrow as pa
import pyarrow.parquet as pq
from medeventgraph.fhir_adapters.json_shape import shape_problem
from medeventgraph.fhir_adapters.reader import items_from_json, parse_json_bytes
from medeventgraph.model.outcome import InputError, Issue
from medeventgraph.model.settings import Settings

from .resource_keys import latest_date, owner_of, resource_key

__all__ = ["SCHEMA", "SpoolStats", "build_spool", "input_files", "spool_is_current"]

_DEFAULT_DEPTH: int = Settings.model_fields["max_json_depth"].default  # the settings' default, no env read

SCHEMA = pa.schema([("patient", pa.string()), ("key", pa.string()), ("full_url", pa.string()),
                    ("loc", pa.string()), ("stamp", pa.string()), ("json", pa.binary())])
_SUFFIXES = (".ndjson", ".ndjson.gz", ".json", ".json.gz")
# Shared resources (no patient) that the mappers read through references; the rest (Practitioner,
# Organization, Location...) never changes a verdict and is not spooled.
SHARED_TYPES = frozenset({"Medication"})
_MAX_LINE = 64 * 1024 * 1024
_MAX_FILE = 1024 * 1024 * 1024
# A Bulk export's gzip files are many gigabytes, so no absolute cap as the CLI's; FHIR NDJSON
# inflates 7-13 times (the MIMIC demo's files), a decompression bomb up to 1,032 times. Past this
# ratio (and a floor that spares small files) the rest of the file is skipped, bounding the time.
_MAX_INFLATION = 200
_INFLATION_FLOOR = 64 * 1024 * 1024
_BATCH_ROWS = 2_000
# Row groups also end at this much JSON: a row group of 2,000 large notes is tens of MB, and a
# reader holds a whole row group, so memory would grow with the population up to that cap.
_BATCH_BYTES = 4 * 1024 * 1024
_FILE_ROWS = 50_000


@dataclass
class SpoolStats:
    files: int = 0
    rows: int = 0
    shared: int = 0
    issues: list[Issue] = field(default_factory=list)


def input_files(root: Path) -> list[Path]:
    if root.is_file():
        return [root]
    if not root.is_dir():
        raise InputError(Issue("fatal", "not-found", f"{root}: no such file or folder"))
    found = [Path(d) / name for d, _, names in os.walk(root, followlinks=True) for name in names]
    return sorted(p for p in found if p.is_file() and p.name.lower().endswith(_SUFFIXES) and not p.name.startswith("_"))


def _fingerprint(files: list[Path]) -> list[list[Any]]:
    return [[str(p), p.stat().st_size, p.stat().st_mtime_ns] for p in files]


def spool_is_current(spool: Path, files: list[Path]) -> bool:
    try:
        done = orjson.loads((spool / "manifest.json").read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return False
    return done.get("inputs") == _fingerprint(files)


class _Writer:
    """Rows -> Parquet files of at most _FILE_ROWS rows, flushed every _BATCH_ROWS or _BATCH_BYTES."""

    def __init__(self, folder: Path):
        self.folder, self.part, self.in_file = folder, 0, 0
        self.rows: dict[str, list[Any]] = {name: [] for name in SCHEMA.names}
        self.writer: pq.ParquetWriter | None = None
        self.buffered = 0

    def add(self, patient: str | None, key: str, full_url: str | None, loc: str, stamp: str | None,
            data: bytes) -> None:
        for name, value in zip(SCHEMA.names, (patient, key, full_url, loc, stamp, data), strict=True):
            self.rows[name].append(value)
        self.buffered += len(data)
        if len(self.rows["key"]) >= _BATCH_ROWS or self.buffered >= _BATCH_BYTES:
            self.flush()

    def flush(self) -> None:
        n = len(self.rows["key"])
        if not n:
            return
        if self.writer is None:
            self.writer = pq.ParquetWriter(self.folder / f"part-{self.part:05d}.parquet", SCHEMA)
        self.writer.write_table(pa.table(self.rows, schema=SCHEMA))
        self.rows = {name: [] for name in SCHEMA.names}
        self.buffered = 0
        self.in_file += n
        if self.in_file >= _FILE_ROWS:
            self.close()

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            self.writer, self.part, self.in_file = None, self.part + 1, 0


def _open(path: Path) -> IO[bytes]:
    with path.open("rb") as probe:
        magic = probe.read(2)
    return cast(IO[bytes], gzip.open(path, "rb")) if magic == b"\x1f\x8b" else path.open("rb")


def _inflation_limit(path: Path) -> int:
    """The bytes a file may inflate to before the rest of it is skipped."""
    return max(_INFLATION_FLOOR, _MAX_INFLATION * path.stat().st_size)


def _lines(path: Path, name: str, issues: list[Issue]) -> Iterator[tuple[int, bytes]]:
    limit = _inflation_limit(path)
    with _open(path) as f:
        n = read = 0
        while True:
            try:
                line = f.readline(_MAX_LINE + 1)
                read += len(line)
                if len(line) > _MAX_LINE:
                    issues.append(Issue("error", "too-long", f"{name} line {n + 1}: longer than {_MAX_LINE} bytes; "
                                                             "skipped"))
                    while line and not line.endswith(b"\n") and read <= limit:
                        line = f.readline(_MAX_LINE)
                        read += len(line)
                    line = b"\n"  # counted as the line it was
            except (OSError, EOFError) as exc:
                issues.append(Issue("error", "structure", f"{name} line {n + 1}: unreadable ({type(exc).__name__}); "
                                                          "rest of file skipped"))
                return
            if read > limit:
                issues.append(Issue("error", "too-costly", f"{name} line {n + 1}: the file inflates past "
                                                           f"{_MAX_INFLATION} times its size; rest of file skipped"))
                return
            if not line:
                return
            n += 1
            if line.strip():
                yield n, line


def _add_resources(value: Any, loc: str, out: _Writer, stats: SpoolStats, max_depth: int) -> None:
    """A resource or a Bundle (its entries, ownership resolved inside the Bundle). A resource the
    spool cannot store as orjson bytes (nested past orjson's limit, a lone surrogate, a huge
    integer) is skipped with the shape rule it breaks and its path, as ingest would name it; one
    nested past `max_depth` but within orjson's limit is stored, and ingest skips it per patient."""
    items, item_issues = items_from_json(value, loc)
    stats.issues.extend(item_issues)
    patients_by_url = {}
    patient_ids = set()
    for item in items:
        res = item.resource
        if isinstance(res, dict) and res.get("resourceType") == "Patient" and isinstance(res.get("id"), str):
            patient_ids.add(res["id"])
            if item.full_url:
                patients_by_url[item.full_url] = res["id"]
    sole = next(iter(patient_ids)) if len(patient_ids) == 1 else None
    for item in items:
        res = item.resource
        where = item.location or loc
        if not isinstance(res, dict):
            stats.issues.append(Issue("error", "structure", f"{where}: resource is not a JSON object; skipped"))
            continue
        key = resource_key(res, item.full_url)
        if key is None:
            stats.issues.append(Issue("error", "required", f"{where}: no resourceType or no id; skipped"))
            continue
        try:
            stored = orjson.dumps(res)
        except orjson.JSONEncodeError:  # only then walked for the rule it breaks: the common case pays nothing
            problem = shape_problem(res, max_depth)
            rule = f"{problem.rule}{f' at {problem.path}' if problem.path else ''}" if problem else "cannot be stored"
            stats.issues.append(Issue("error", problem.code if problem else "structure",
                                      f"{where}: {key.split('/')[0]}: {rule}; skipped"))
            continue
        owner = owner_of(res, patients_by_url)
        if owner.problem is not None:
            stats.issues.append(Issue("error", "not-found", f"{where}: {key.split('/')[0]}: {owner.problem}; skipped"))
            continue
        patient = owner.patient if owner.patient is not None else sole
        if patient is None and key.split("/", 1)[0] not in SHARED_TYPES:
            continue
        out.add(patient, key, item.full_url, where, latest_date(res), stored)
        stats.rows += 1
        stats.shared += patient is None


def _spool_file(path: Path, name: str, out: _Writer, stats: SpoolStats, max_depth: int) -> None:
    lower = name.lower()
    if lower.endswith((".json", ".json.gz")) and path.stat().st_size <= _MAX_FILE:
        cap = min(_MAX_FILE, _inflation_limit(path))
        with _open(path) as f:
            data = f.read(cap + 1)
        try:
            value = parse_json_bytes(data) if len(data) <= cap else None
        except orjson.JSONDecodeError:
            value = None  # some exports name NDJSON files .json: read it line by line below
        if isinstance(value, dict) and "resourceType" not in value:
            return  # a Bulk Data manifest or other metadata, not a resource
        if value is not None:
            _add_resources(value, name, out, stats, max_depth)
            return
    for n, line in _lines(path, name, stats.issues):
        try:
            value = parse_json_bytes(line)
        except orjson.JSONDecodeError:
            stats.issues.append(Issue("error", "structure", f"{name} line {n}: malformed JSON; line skipped"))
            continue
        _add_resources(value, f"{name} line {n}", out, stats, max_depth)


def build_spool(root: Path, spool: Path, max_depth: int = _DEFAULT_DEPTH) -> SpoolStats:
    """(Re)build the spool for `root`; the manifest is written last, so a crash means rebuild.
    `max_depth`: the nesting a resource may have (the settings' max_json_depth)."""
    files = input_files(root)
    if spool.exists():
        shutil.rmtree(spool)
    spool.mkdir(parents=True)
    stats = SpoolStats(files=len(files))
    out = _Writer(spool)
    base = root if root.is_dir() else root.parent
    for path in files:
        name = str(path.relative_to(base))
        try:
            _spool_file(path, name, out, stats, max_depth)
        except (OSError, EOFError) as exc:
            stats.issues.append(Issue("error", "structure", f"{name}: unreadable ({type(exc).__name__}); skipped"))
        out.flush()
    out.close()
    if not any(spool.glob("part-*.parquet")):
        pq.write_table(pa.table({n: [] for n in SCHEMA.names}, schema=SCHEMA), spool / "part-00000.parquet")
    issues = b"".join(orjson.dumps(i.to_fhir()) + b"\n" for i in stats.issues)
    (spool / "issues.ndjson").write_bytes(issues)
    tmp = spool / "manifest.json.tmp"
    tmp.write_bytes(orjson.dumps({"inputs": _fingerprint(files), "rows": stats.rows, "files": stats.files}))
    os.replace(tmp, spool / "manifest.json")
    return stats
