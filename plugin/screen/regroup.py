"""Local engine's regrouping: the spool (in export order, grouped by resource type) hash-
partitioned by patient into buckets of about `bucket_bytes` of JSON, then one bucket at a time
read, sorted by patient, key and location, and streamed as patient groups.

One sort over the whole spool does not stay bounded: DuckDB cannot spill a sort whose payload
is large JSON blobs and fails past its memory cap (the 16x screening benchmark did, at 404 MB of
JSON under a 256 MB cap). Here the partition pass holds at most `buffer_bytes` of rows, and the
sort holds one bucket, so peak memory follows the bucket size (and the largest patient), not
the population. Buckets are written once per spool and reused by a resumed run.
"""

from __future__ import annotations

import math
import os
import shutil
import zlib
from collections.abc import Iterator
from pathlib import Path

import orjson
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

__all__ = ["BUCKET_BYTES", "GroupRow", "bucket_count", "patient_groups", "regroup_spool"]

BUCKET_BYTES = 32 * 1024 * 1024
BUFFER_BYTES = 32 * 1024 * 1024
_COLUMNS = ["patient", "key", "full_url", "loc", "json"]
_SORT = [("patient", "ascending"), ("key", "ascending"), ("loc", "ascending")]
_FOLDER = "by-patient"

GroupRow = tuple[str, str | None, str, bytes]  # key, full_url, loc, json


def _spool_parts(spool: Path) -> list[Path]:
    return sorted(spool.glob("part-*.parquet"))


def bucket_count(spool: Path, bucket_bytes: int = BUCKET_BYTES) -> int:
    """Buckets for this spool, from the JSON column's uncompressed size in the Parquet footers."""
    total = 0
    for part in _spool_parts(spool):
        meta = pq.ParquetFile(part).metadata
        col = meta.schema.names.index("json")
        total += sum(meta.row_group(g).column(col).total_uncompressed_size for g in range(meta.num_row_groups))
    return max(1, math.ceil(total / bucket_bytes))


def _bucket_of(patient: str, buckets: int) -> int:
    return zlib.crc32(patient.encode()) % buckets  # stable across processes, unlike hash()


class _Buckets:
    """Rows buffered per bucket; past `buffer_bytes` in all, every buffer becomes one new file."""

    def __init__(self, folder: Path, buffer_bytes: int):
        self.folder, self.buffer_bytes = folder, buffer_bytes
        self.buffers: dict[int, list[pa.RecordBatch]] = {}
        self.buffered = 0
        self.files = 0

    def add(self, bucket: int, batch: pa.RecordBatch) -> None:
        self.buffers.setdefault(bucket, []).append(batch)
        self.buffered += batch.nbytes
        if self.buffered >= self.buffer_bytes:
            self.flush()

    def flush(self) -> None:
        for bucket, batches in sorted(self.buffers.items()):
            pq.write_table(pa.Table.from_batches(batches), self.folder / f"b{bucket:05d}-{self.files:06d}.parquet")
            self.files += 1
        self.buffers, self.buffered = {}, 0


def regroup_spool(spool: Path, bucket_bytes: int = BUCKET_BYTES, buffer_bytes: int = BUFFER_BYTES) -> int:
    """Write (once) the patient buckets under spool/by-patient; returns the bucket count.

    A `done.json` marker is written last, so an interrupted pass is redone from scratch."""
    folder = spool / _FOLDER
    try:
        return int(orjson.loads((folder / "done.json").read_bytes())["buckets"])
    except (OSError, orjson.JSONDecodeError, KeyError, TypeError, ValueError):
        pass
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir()
    buckets = bucket_count(spool, bucket_bytes)
    out = _Buckets(folder, buffer_bytes)
    for part in _spool_parts(spool):
        for batch in pq.ParquetFile(part).iter_batches(batch_size=2_000, columns=_COLUMNS):
            patients = batch.column(0).to_pylist()
            ids = pa.array([-1 if p is None else _bucket_of(p, buckets) for p in patients], pa.int32())
            for bucket in pc.unique(ids).to_pylist():
                if bucket >= 0:
                    out.add(bucket, batch.filter(pc.equal(ids, bucket)))
    out.flush()
    pa.default_memory_pool().release_unused()  # the buffers' pages, before the screening starts
    tmp = folder / "done.json.tmp"
    tmp.write_bytes(orjson.dumps({"buckets": buckets}))
    os.replace(tmp, folder / "done.json")
    return buckets


def patient_groups(spool: Path, todo: list[str], bucket_bytes: int = BUCKET_BYTES,
                   batch_rows: int = 2_000) -> Iterator[tuple[str, list[GroupRow]]]:
    """(patient, rows sorted by key and location) for each patient in `todo`, one bucket in memory."""
    buckets = regroup_spool(spool, bucket_bytes)
    wanted = pa.array(sorted(todo), pa.string())
    folder = spool / _FOLDER
    for bucket in range(buckets):
        files = sorted(folder.glob(f"b{bucket:05d}-*.parquet"))
        if not files:
            continue
        table = pq.read_table(files, columns=_COLUMNS)
        table = table.filter(pc.is_in(table["patient"], value_set=wanted))
        table = table.take(pc.sort_indices(table, sort_keys=_SORT))
        yield from _groups(table, batch_rows)
        del table
        pa.default_memory_pool().release_unused()


def _groups(table: pa.Table, batch_rows: int) -> Iterator[tuple[str, list[GroupRow]]]:
    current: str | None = None
    rows: list[GroupRow] = []
    for batch in table.to_batches(max_chunksize=batch_rows):
        cols = batch.to_pydict()
        for patient, key, full_url, loc, data in zip(cols["patient"], cols["key"], cols["full_url"], cols["loc"],
                                                      cols["json"], strict=True):
            if patient != current:
                if current is not None:
                    yield current, rows
                current, rows = patient, []
            rows.append((key, full_url, loc, data))
    if current is not None:
        yield current, rows
