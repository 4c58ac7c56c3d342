"""InputLimits: how much of the input the adapters will read, as one frozen value.

Built from Settings by the CLI, the Python API and the service (`InputLimits.from_settings`);
the adapters never read settings themselves.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["DEFAULT_LIMITS", "InputLimits"]


@dataclass(frozen=True, slots=True)
class InputLimits:
    max_note_chars: int = 200_000  # text indexed per attachment, after HTML stripping
    max_note_bytes: int = 2_000_000  # decoded attachment bytes read, before charset decoding and stripping
    max_json_depth: int = 100  # nesting of one resource (orjson, the hasher, stops at 255)
    max_inflated_bytes: int = 256 * 1024 * 1024  # one gzip file, decompressed

    @classmethod
    def from_settings(cls, settings: Any) -> InputLimits:
        return cls(settings.max_note_chars, settings.max_note_bytes, settings.max_json_depth,
                   settings.max_inflated_bytes)


DEFAULT_LIMITS = InputLimits()
