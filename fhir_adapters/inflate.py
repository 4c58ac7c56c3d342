"""gzip files inflated in bounded steps, so a small file that inflates to gigabytes is refused
at a cost of one step of memory, never the whole of what it would inflate to.

`inflated_pieces` yields the decompressed bytes of every gzip member in pieces of at most
`OUT_STEP` bytes, reading the compressed input `IN_STEP` bytes at a time, and stops with
`TooLarge` as soon as more than the cap has come out. `fits` runs it keeping nothing: a file
that could inflate past the cap (deflate never exceeds `MAX_RATIO`:1) is measured that way before
any of it is kept, so a refused file costs one step of memory however far it would inflate.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator

__all__ = ["IN_STEP", "MAX_RATIO", "OUT_STEP", "TooLarge", "could_exceed", "fits", "inflated_pieces", "lines_of"]

_GZIP = 16 + zlib.MAX_WBITS
IN_STEP = 64 * 1024  # compressed bytes handed to zlib at once: bounds the copies of unconsumed input
OUT_STEP = 1024 * 1024  # decompressed bytes produced at once
MAX_RATIO = 1032  # deflate's largest expansion (258-byte matches from 2-bit codes), gzip headers aside


class TooLarge(Exception):
    """The file inflates to more than the cap."""


def inflated_pieces(data: bytes, cap: int) -> Iterator[bytes]:
    """The inflated bytes of every gzip member of `data`, in pieces of at most OUT_STEP bytes.

    Raises TooLarge once more than `cap` bytes have come out, EOFError when a member is cut
    short, zlib.error when the bytes are not gzip."""
    view = memoryview(data)
    pos = total = 0
    while pos < len(view):  # one gzip member per round
        inflater = zlib.decompressobj(_GZIP)
        tail: bytes = b""
        while not inflater.eof:
            if tail:
                piece: bytes | memoryview = tail
            else:
                piece = view[pos:pos + IN_STEP]
                pos += len(piece)
            out = inflater.decompress(piece, OUT_STEP)
            tail = inflater.unconsumed_tail
            if out:
                total += len(out)
                if total > cap:
                    raise TooLarge
                yield out
            elif not piece:
                # zlib may still hold output after its input is used up, so only an empty
                # answer to no input means the member really ends early
                raise EOFError("gzip stream ends early")
        # what zlib read past this member's end is the start of the next one
        pos -= len(inflater.unused_data)


def could_exceed(compressed_size: int, cap: int) -> bool:
    return compressed_size * MAX_RATIO > cap


def fits(data: bytes, cap: int) -> None:
    """Raise TooLarge (or the errors of `inflated_pieces`) without keeping any inflated byte."""
    if could_exceed(len(data), cap):
        for _ in inflated_pieces(data, cap):
            pass


def lines_of(pieces: Iterator[bytes]) -> Iterator[bytes]:
    """The lines (without their newline) of the concatenated pieces, the last one even if it has
    no newline; a line split across pieces is joined once, not re-copied for every piece."""
    pending = bytearray()
    for chunk in pieces:
        start = 0
        while (end := chunk.find(b"\n", start)) != -1:
            if pending:
                pending += chunk[start:end]
                yield bytes(pending)
                pending.clear()
            else:
                yield chunk[start:end]
            start = end + 1
        pending += chunk[start:]
    if pending:
        yield bytes(pending)
