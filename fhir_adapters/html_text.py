"""VisibleText: the visible text of HTML, with the stdlib's streaming `html.parser`.

Linear time by construction: markup is fed in CHUNK-sized pieces and the parser never holds
more than MAX_PENDING characters of an unfinished construct (an unterminated tag, comment or
declaration): past that, what it holds is dropped, as a browser would swallow it. Inside a
script or style element, whose end tag the parser waits for, only the last few characters are
kept (where a split end tag may start). Every feed therefore rescans at most MAX_PENDING +
CHUNK characters, so the whole run is O(n).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from html import unescape
from html.parser import HTMLParser

__all__ = ["VisibleText"]

_BREAKS = frozenset({"br", "p", "div", "li", "tr", "h1", "h2", "h3", "h4", "h5", "h6", "table", "ul", "ol"})
_CELLS = frozenset({"td", "th"})  # cells end with a space: "<td>AKI</td><td>2.1</td>" is "AKI 2.1"
_REF_END = re.compile(r"[\s;]")
_HIDDEN = frozenset({"script", "style", "head"})


class VisibleText(HTMLParser):
    CHUNK = 4_096
    MAX_PENDING = 8_192
    _END_TAG_TAIL = 64  # enough for a `</script >` split across feeds

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self._parts: list[str] = []
        self._hidden = 0
        self.dropped = 0  # characters of unfinished markup dropped (at most MAX_PENDING each time)
        self.max_pending = 0  # the most the parser ever held back: the linearity bound, for tests
        self._skip_until = ""  # the end of a dropped construct, while it is still being read
        self._skip_tail = ""

    @classmethod
    def of(cls, markup: str) -> str:
        """The visible text of `markup`, fed in pieces."""
        parser = cls()
        for piece in cls.pieces(markup):
            parser.feed(piece)
        parser.close()
        return parser.text()

    @classmethod
    def pieces(cls, markup: str) -> Iterator[str]:
        """Pieces of at most CHUNK characters, cut just before a `<` or after whitespace where there
        is one (so a piece rarely ends inside a tag) and never inside a character reference."""
        start, n = 0, len(markup)
        while start < n:
            end = min(n, start + cls.CHUNK)
            if end < n:
                half = start + cls.CHUNK // 2
                cut = markup.rfind("<", half, end)
                if cut < 0:
                    cut = max(markup.rfind(" ", half, end), markup.rfind("\n", half, end)) + 1
                if cut > start:
                    end = cut
                # never inside a character reference (`&amp;` is at most 33 characters long)
                amp = markup.rfind("&", max(start + 1, end - 34), end)
                if amp > 0 and not _REF_END.search(markup, amp, end):
                    end = amp
            yield markup[start:end]
            start = end

    def feed(self, data: str) -> None:
        if self._skip_until:
            data = self._skip(data)
            if not data:
                return
        super().feed(data)
        pending = len(self.rawdata)
        self.max_pending = max(self.max_pending, pending)
        if pending > self.MAX_PENDING:
            if not self.rawdata.startswith("<") and not self.cdata_elem:
                # text held back in case a character reference continues in the next piece
                # (pieces are cut before `<` or whitespace, so only a long unbroken run gets here)
                self.handle_data(unescape(self.rawdata))
                self.rawdata = ""
            elif self.cdata_elem:  # script/style text: invisible; keep where its end tag may begin
                self.dropped += pending - self._END_TAG_TAIL
                self.rawdata = self.rawdata[-self._END_TAG_TAIL:]
            else:  # an unterminated tag, comment or declaration: the rest of it is dropped too
                self.dropped += pending
                self._skip_until = "-->" if self.rawdata.startswith("<!--") else ">"
                hidden = self._hidden
                self.reset()
                self._hidden = hidden

    def _skip(self, data: str) -> str:
        """What follows the end of a dropped construct, or "" while it has not ended."""
        end = self._skip_until
        text = self._skip_tail + data
        found = text.find(end)
        if found < 0:
            self.dropped += len(data)
            self._skip_tail = text[-(len(end) - 1):] if len(end) > 1 else ""
            return ""
        self._skip_until, self._skip_tail = "", ""
        return text[found + len(end):]

    def close(self) -> None:
        # Unterminated markup at the end is dropped (a browser swallows it too); handing it to
        # HTMLParser.close() would rescan to the end once for every `<` it holds: quadratic.
        if self.rawdata.startswith("<") and not self.cdata_elem:
            self.dropped += len(self.rawdata)
            self.rawdata = ""
        super().close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _HIDDEN:
            self._hidden += 1
        elif tag == "br":
            self._parts.append("\n")

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "br":
            self._parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in _HIDDEN:
            self._hidden = max(0, self._hidden - 1)
        elif tag in _BREAKS and tag != "br":
            self._parts.append("\n")
        elif tag in _CELLS:
            self._parts.append(" ")

    def handle_data(self, data: str) -> None:
        if not self._hidden and not self.cdata_elem:
            self._parts.append(data)

    def text(self) -> str:
        return "".join(self._parts)
