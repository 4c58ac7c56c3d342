"""Output that survives interruption: verdict blocks appended per patient, then journaled.

`verdicts.ndjson` gets one patient's lines in a single append; then `journal.ndjson` gets
{"patient", "end"} where `end` is the verdict file's size after that block. On restart, the
verdict file is cut back to the last journaled end (dropping a block written but not
journaled, or half written) and the journaled patients are skipped: none is done twice in
the output and none is lost.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Self

import orjson

from .patient import PatientResult

__all__ = ["Journal"]


class Journal:
    def __init__(self, out: Path):
        self.verdicts_path = out / "verdicts.ndjson"
        self.journal_path = out / "journal.ndjson"
        self.done: set[str] = set()
        self.issue_count = 0
        end, good = self._recover()
        self._truncate(self.verdicts_path, end)
        self._truncate(self.journal_path, good)
        flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND
        self._verdicts = os.open(self.verdicts_path, flags, 0o600)
        self._journal = os.open(self.journal_path, flags, 0o600)

    def _recover(self) -> tuple[int, int]:
        """(verdict bytes to keep, journal bytes to keep)."""
        try:
            data = self.journal_path.read_bytes()
        except FileNotFoundError:
            return 0, 0
        end = good = 0
        for line in data.splitlines(keepends=True):
            if not line.endswith(b"\n"):
                break  # half-written last entry
            try:
                entry = orjson.loads(line)
            except orjson.JSONDecodeError:
                break
            self.done.add(entry["patient"])
            self.issue_count += len(entry.get("issues", ()))
            end = entry["end"]
            good += len(line)
        return end, good

    @staticmethod
    def _truncate(path: Path, size: int) -> None:
        if path.exists() and path.stat().st_size > size:
            with path.open("r+b") as f:
                f.truncate(size)

    def write(self, result: PatientResult) -> None:
        if result.patient in self.done:
            return  # a retried task's duplicate
        block = b"".join(orjson.dumps(line) + b"\n" for line in result.lines)
        _write_all(self._verdicts, block)
        os.fsync(self._verdicts)
        end = os.fstat(self._verdicts).st_size
        entry = {"patient": result.patient, "end": end, "issues": list(result.issues), "at": time.time(),
                 "worker": result.worker}
        _write_all(self._journal, orjson.dumps(entry) + b"\n")
        self.done.add(result.patient)
        self.issue_count += len(result.issues)

    def close(self) -> None:
        os.fsync(self._journal)
        os.close(self._verdicts)
        os.close(self._journal)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]
