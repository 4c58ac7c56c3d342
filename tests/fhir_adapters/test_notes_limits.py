"""Note decoding limits and the linear-time HTML stripper (issue 10)."""

from __future__ import annotations

import base64

import pytest
from medeventgraph.fhir_adapters.html_text import VisibleText
from medeventgraph.fhir_adapters.notes import decode_attachment, html_to_text


def _att(raw: bytes, content_type: str = "text/plain") -> dict:
    return {"contentType": content_type, "data": base64.b64encode(raw).decode()}


def test_byte_limit_applies_before_stripping():
    markup = ("<p>" + "<b></b>" * 200 + "acute kidney injury</p>") * 500  # mostly markup
    text, problems = decode_attachment(_att(markup.encode(), "text/html"), 0, 1_000_000, max_bytes=10_000)
    assert [p.code for p in problems] == ["too-long"]
    assert "truncated to 10000 bytes" in problems[0].message
    assert 0 < len(text.text) < 10_000 and "acute kidney injury" in text.text


def test_byte_limit_decodes_only_the_prefix():
    """Past the limit the data is not even base64-decoded (its tail here is not valid base64)."""
    att = {"contentType": "text/plain", "data": base64.b64encode(b"a" * 3000).decode() + "!!!!" * 1000}
    text, problems = decode_attachment(att, 0, 1_000_000, max_bytes=1500)
    assert text.text == "a" * 1500 and [p.code for p in problems] == ["too-long"]


def test_a_character_cut_by_the_byte_limit_is_dropped():
    text, problems = decode_attachment(_att("é".encode() * 10), 0, 1_000, max_bytes=5)
    assert text.text == "éé" and [p.code for p in problems] == ["too-long"]


def test_under_the_limits_nothing_is_reported():
    text, problems = decode_attachment(_att(b"No AKI."), 0, 1_000, max_bytes=7)
    assert text.text == "No AKI." and problems == []


def test_html_text_matches_the_visible_text():
    markup = ("<HTML><head><title>T</title><script>if (a<b) { x = '</p>' }</script></head>"
              "<body><h1>Plan</h1><p>A &lt; B &amp; C&#39;s</p><br/>line<br>two<!-- hidden <p>x</p> -->"
              "<ul><li>one</li><li>two &gt;</li></ul><style>p{}</style><p>after</p></body></HTML>")
    assert html_to_text(markup) == "Plan\nA < B & C's\n\nline\ntwoone\ntwo >\n\nafter"


_ADVERSARIAL = {
    "paragraphs": "<p>acute kidney injury</p>",
    "lone angle brackets": "< a <b <c",
    "unterminated tags": "<a href='x' ",
    "unterminated comment": "<!-- x",
    "unterminated script": "<script>x = 1; ",
    "entities": "&amp;&#1234;&unknown &",
    "declarations": "<!DOCTYPE <? <![CDATA[",
}


@pytest.mark.parametrize("name", list(_ADVERSARIAL))
def test_stripper_holds_back_a_bounded_amount(name):
    """Linearity, structurally: each feed rescans only what the parser holds back, and that
    never exceeds MAX_PENDING + CHUNK however long the input, so the whole run is O(n)."""
    unit = _ADVERSARIAL[name]
    markup = unit * (400_000 // len(unit))
    parser = VisibleText()
    pieces = list(VisibleText.pieces(markup))
    assert "".join(pieces) == markup and max(map(len, pieces)) <= VisibleText.CHUNK
    for piece in pieces:
        parser.feed(piece)
        assert len(parser.rawdata) <= VisibleText.MAX_PENDING
    parser.close()
    assert parser.max_pending <= VisibleText.MAX_PENDING + VisibleText.CHUNK


def test_no_text_is_lost_between_pieces():
    import html

    for unit in ("AKI &amp; sepsis &lt; 24 h &#233; ", "x&amp;" * 3 + "y", "&amp;" * 7):
        markup = unit * (100_000 // len(unit))
        assert html_to_text(markup) == " ".join(html.unescape(markup).split())


def test_unterminated_markup_is_dropped_not_kept_waiting():
    markup = "<p>before</p><!-- never closed " + "x" * 200_000 + "<p>gone</p>"
    assert html_to_text(markup) == "before"
    parser = VisibleText()
    for piece in VisibleText.pieces(markup):
        parser.feed(piece)
    assert parser.dropped > 0 and parser.rawdata == ""
