"""Attachment -> note text: base64 decoding, charset, HTML to text, size limit.

The text returned here is exactly what the NLP stage indexes, so note-span offsets cited later
(`DocumentReference/9#s120-188`) are offsets into this string.
"""

from __future__ import annotations

import binascii
import codecs
import re
from typing import Any

from medeventgraph.fhir_adapters.html_text import VisibleText
from medeventgraph.model.occurrence import NoteText

__all__ = ["TEXT_TYPES", "AttachmentProblem", "decode_attachment", "html_to_text"]

TEXT_TYPES = frozenset({"text/plain", "text/html", "application/xhtml+xml", "text/markdown"})

_WS = re.compile(r"[ \t\r\f\v]+")
_MANY_NL = re.compile(r"\n{3,}")


def html_to_text(markup: str) -> str:
    """Visible text of an HTML fragment, block ends kept as line breaks. Linear in its length
    (see `VisibleText`)."""
    text = _WS.sub(" ", VisibleText.of(markup))
    text = "\n".join(line.strip() for line in text.split("\n"))
    return _MANY_NL.sub("\n\n", text).strip()


class AttachmentProblem:
    """Why an attachment gave no (or only part of its) text; codes are FHIR issue types."""

    __slots__ = ("code", "message", "severity")

    def __init__(self, severity: str, code: str, message: str):
        self.severity = severity
        self.code = code
        self.message = message


def _b64(data: str, max_bytes: int) -> tuple[bytes, bool]:
    """The first `max_bytes` decoded bytes, and whether there were more; only the prefix that
    gives them is decoded, so an oversized attachment costs no more than the limit."""
    if any(c in data for c in " \t\r\n"):
        # FHIR base64Binary allows whitespace between groups; strict mode does not.
        data = "".join(data.split())
    keep = 4 * -(-max_bytes // 3)  # 4 characters of base64 give 3 bytes
    raw = binascii.a2b_base64(data[:keep], strict_mode=True)
    return raw[:max_bytes], len(data) > keep or len(raw) > max_bytes


def _decode(raw: bytes, charset: str, truncated: bool) -> str:
    """Bytes -> text; a multi-byte character cut by the byte limit is dropped, not an error.

    Raises LookupError unless `charset` names a text encoding: Python's codec registry also
    holds bytes-to-bytes codecs (`zlib_codec` would inflate the note without bound) and
    text-to-text ones (`rot13`), which are no charset of a document."""
    info = codecs.lookup(charset)
    if not getattr(info, "_is_text_encoding", True):
        raise LookupError(charset)
    decoder = info.incrementaldecoder(errors="strict")  # type: ignore[misc]
    return decoder.decode(raw, final=not truncated)


_SURROGATE = re.compile("[\ud800-\udfff]")


def _valid_unicode(text: str) -> tuple[str, bool]:
    """`text` with each lone UTF-16 surrogate replaced by U+FFFD, and whether there was one.

    Strict decoders can still give them (UTF-7 `+2AA-`, `unicode_escape`), and no later stage
    can hash, index or print such a string; one character for one keeps every span offset."""
    if text.isascii():
        return text, False
    cleaned = _SURROGATE.sub("\ufffd", text)
    return cleaned, cleaned != text


def decode_attachment(
    att: Any, index: int, max_chars: int, field: str = "attachment", *, max_bytes: int = 2_000_000
) -> tuple[NoteText | None, list[AttachmentProblem]]:
    """Decoded text of one text attachment (or None), and what went wrong, if anything.

    `max_bytes` bounds the decoded bytes read (before charset decoding and HTML stripping),
    `max_chars` the text kept after them. Problems are phrased with `field[index]` (e.g.
    `content[0]`) and never quote the data."""
    where = f"{field}[{index}]"
    if not isinstance(att, dict):
        return None, [AttachmentProblem("warning", "structure", f"{where} is not an object")]
    content_type = att.get("contentType")
    mime, _, params = (content_type if isinstance(content_type, str) else "").partition(";")
    mime = mime.strip().lower()
    data = att.get("data")
    if data is None:
        if att.get("url"):
            return None, [AttachmentProblem("information", "not-supported",
                                            f"{where} is by URL only; not fetched")]
        return None, []
    if mime not in TEXT_TYPES:
        return None, [AttachmentProblem("information", "not-supported",
                                        f"{where} has non-text content type; skipped")]
    if not isinstance(data, str):
        return None, [AttachmentProblem("error", "structure", f"{where} data is not a string")]
    try:
        raw, cut = _b64(data, max_bytes)
    except (binascii.Error, ValueError):
        return None, [AttachmentProblem("error", "invalid", f"{where} data is not valid base64")]
    problems: list[AttachmentProblem] = []
    if cut:
        problems.append(AttachmentProblem("warning", "too-long",
                                          f"{where} decoded data truncated to {max_bytes} bytes (max_note_bytes)"))
    charset = "utf-8"
    for param in params.split(";"):
        name, _, value = param.partition("=")
        if name.strip().lower() == "charset" and value.strip():
            charset = value.strip().strip('"')
    try:
        text = _decode(raw, charset, cut)
    except LookupError:
        text = raw.decode("utf-8", errors="replace")
        problems.append(AttachmentProblem("warning", "invalid", f"{where} names no known text charset; read as "
                                                                "UTF-8, undecodable bytes replaced"))
    except UnicodeError:  # UnicodeDecodeError, and the `undefined` codec's plain UnicodeError
        text = raw.decode("utf-8", errors="replace")
        problems.append(AttachmentProblem("warning", "invalid",
                                          f"{where} is not valid in its charset; undecodable bytes replaced"))
    if mime != "text/plain" and mime != "text/markdown":
        text = html_to_text(text)
    text, replaced = _valid_unicode(text)
    if replaced:
        problems.append(AttachmentProblem("warning", "invalid", f"{where} gives text that is not valid "
                                                                "Unicode (lone UTF-16 surrogates); each replaced by U+FFFD"))
    if len(text) > max_chars:
        text = text[:max_chars]
        problems.append(AttachmentProblem("warning", "too-long",
                                          f"{where} text truncated to {max_chars} characters"))
    return NoteText(index, mime, text), problems
