"""The local engine's regrouping stays bounded: the spool is hash-partitioned by patient and one
bucket is held at a time (a single sort of the whole spool ran out of memory at 16x the
population in the screening benchmark); spool row groups end at a byte bound too."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from medeventgraph.screen import spool as spool_module
from medeventgraph.screen.regroup import bucket_count, patient_groups, regroup_spool
from medeventgraph.screen.spool import build_spool


@pytest.fixture(scope="module")
def spool(export_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("regroup") / "spool"
    build_spool(export_dir, folder)
    return folder


def _json_bytes(spool: Path) -> int:
    return sum(len(v) for f in sorted(spool.glob("part-*.parquet"))
               for v in pq.read_table(f, columns=["json"])["json"].to_pylist())


def _reference(spool: Path) -> dict[str, list[tuple]]:
    table = pq.read_table(sorted(spool.glob("part-*.parquet")), columns=["patient", "key", "full_url", "loc", "json"])
    groups: dict[str, list[tuple]] = defaultdict(list)
    for p, k, u, loc, j in zip(*(table[c].to_pylist() for c in table.column_names), strict=True):
        if p is not None:
            groups[p].append((k, u, loc, j))
    return {p: sorted(rows, key=lambda r: (r[0], r[2])) for p, rows in groups.items()}


def test_buckets_give_every_patient_once_with_all_rows_and_hold_one_bucket(spool: Path) -> None:
    total = _json_bytes(spool)
    bucket_bytes = total // 8
    assert bucket_count(spool, bucket_bytes) >= 8
    reference = _reference(spool)
    todo = sorted(reference)
    got: dict[str, list[tuple]] = {}
    held = []
    for patient, rows in patient_groups(spool, todo, bucket_bytes=bucket_bytes):
        assert patient not in got, "a patient twice"
        got[patient] = rows
        held.append(pa.total_allocated_bytes())
    assert got == reference
    # one bucket (about an eighth of the JSON) is in Arrow memory, never the population
    assert max(held) < total / 2, (max(held), total)


def test_only_todo_patients_and_an_interrupted_pass_is_redone(spool: Path) -> None:
    reference = _reference(spool)
    some = sorted(reference)[::3]
    folder = spool / "by-patient"
    assert regroup_spool(spool, bucket_bytes=10**9) >= 1  # a finished layout is reused, whatever the size asked
    (folder / "done.json").unlink()  # as if killed before the marker
    (folder / "b99999-000000.parquet").write_bytes(b"half written")
    assert regroup_spool(spool, bucket_bytes=200_000) == bucket_count(spool, 200_000) > 1
    assert not (folder / "b99999-000000.parquet").exists()
    got = dict(patient_groups(spool, some, bucket_bytes=200_000))
    assert got == {p: reference[p] for p in some}


def test_spool_row_groups_end_at_a_byte_bound(export_dir: Path, tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(spool_module, "_BATCH_BYTES", 64 * 1024)
    build_spool(export_dir / "clinosim", tmp_path / "spool")
    largest, groups = 0, []
    for f in sorted((tmp_path / "spool").glob("part-*.parquet")):
        pf = pq.ParquetFile(f)
        for g in range(pf.metadata.num_row_groups):
            values = pf.read_row_group(g, columns=["json"])["json"].to_pylist()
            largest = max(largest, *map(len, values))
            groups.append(sum(map(len, values)))
    assert len(groups) > 10 and max(groups) <= 64 * 1024 + largest
