"""Which patients a run screens: from the spool, minus the journal, with --since/--patients.

DuckDB answers these over the Parquet spool without loading it into Python.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import duckdb
import pyarrow as pa

__all__ = ["Selection", "connect", "patient_groups", "shared_resources", "todo_patients"]


@dataclass(frozen=True, slots=True)
class Selection:
    since: str | None = None  # ISO date: patients with a resource dated (or updated) on/after it
    patients: frozenset[str] | None = None  # only these


def connect(work: Path, memory_limit: str = "256MB") -> duckdb.DuckDBPyConnection:
    """One connection with a memory cap: past it DuckDB spills its sort to `work`, so memory
    does not grow with the population."""
    con = duckdb.connect(config={"memory_limit": memory_limit, "threads": 1,
                                 "temp_directory": str(work / "duckdb.tmp"), "preserve_insertion_order": False})
    return con


def _source(spool: Path) -> str:
    return f"read_parquet('{(spool / 'part-*.parquet').as_posix()}')"


def todo_patients(con: duckdb.DuckDBPyConnection, spool: Path, selection: Selection, done: set[str]) -> list[str]:
    """Patient ids still to screen, sorted (only ids: small next to the resources)."""
    sql = f"SELECT patient FROM {_source(spool)} WHERE patient IS NOT NULL GROUP BY patient"
    params: list[object] = []
    if selection.since is not None:
        sql += " HAVING max(stamp) >= ?"
        params.append(selection.since)
    ids = [r[0] for r in con.execute(sql + " ORDER BY patient", params).fetchall()]
    return [p for p in ids if p not in done and (selection.patients is None or p in selection.patients)]


def shared_resources(con: duckdb.DuckDBPyConnection, spool: Path) -> dict[str, bytes]:
    rows = con.execute(f"SELECT key, json FROM {_source(spool)} WHERE patient IS NULL ORDER BY key, loc").fetchall()
    return {k: bytes(j) for k, j in rows}


def patient_groups(con: duckdb.DuckDBPyConnection, spool: Path, todo: list[str],
                   batch_rows: int = 2_000) -> Iterator[tuple[str, list[tuple[str, str | None, str, bytes]]]]:
    """(patient, rows) for each patient in `todo`, streamed from a DuckDB sort by patient."""
    con.register("todo_ids", pa.table({"patient": pa.array(todo, pa.string())}))
    reader = con.sql(
        f"SELECT s.patient, s.key, s.full_url, s.loc, s.json FROM {_source(spool)} s "
        "JOIN todo_ids t ON s.patient = t.patient ORDER BY s.patient, s.key, s.loc"
    ).to_arrow_reader(batch_rows)
    current: str | None = None
    rows: list[tuple[str, str | None, str, bytes]] = []
    for batch in reader:
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
    con.unregister("todo_ids")
