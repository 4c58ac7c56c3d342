"""Which patients a run screens: from the spool, minus the journal, with --since/--patients.

DuckDB answers these over the Parquet spool without loading it into Python (only ids and the
few shared resources come back; the patients' rows are regrouped by regroup.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import duckdb

__all__ = ["Selection", "connect", "shared_resources", "todo_patients"]


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
