"""Invalid Unicode in files, notes and file names is an issue naming where and the rule; only the
resource holding it is skipped, and nothing downstream (hashing, indexing, JSON output) ever
meets it (issue 22)."""

from __future__ import annotations

import base64
import json
import os
import zlib
from pathlib import Path

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from medeventgraph.cli.main import main
from medeventgraph.fhir_adapters import load_paths
from medeventgraph.fhir_adapters.notes import decode_attachment

SUBJ = {"reference": "Patient/p1"}
PATIENT = {"resourceType": "Patient", "id": "p1"}


def _obs(oid: str, text: str = "serum creatinine") -> dict:
    return {"resourceType": "Observation", "id": oid, "status": "final", "subject": SUBJ, "code": {"text": text},
            "effectiveDateTime": "2015-02-04T06:00:00Z", "valueQuantity": {"value": 1.2, "unit": "mg/dL"}}


def _bundle(*resources: dict) -> dict:
    return {"resourceType": "Bundle", "type": "collection", "entry": [{"resource": r} for r in (PATIENT, *resources)]}


def _issue_for(result, where: str) -> str:
    [found] = [i.diagnostics for i in result.issues if where in i.diagnostics]
    return found


@settings(max_examples=40, deadline=None, database=None)
@given(st.integers(0xD800, 0xDFFF), st.integers(0, 16), st.sampled_from(["code.text", "status", "id", "key"]))
def test_a_surrogate_in_a_bundle_file_skips_only_its_resource(tmp_path_factory, codepoint, at, where):
    bad = _obs("o2")
    char = chr(codepoint)
    if where == "code.text":
        bad["code"]["text"] = bad["code"]["text"][:at] + char + bad["code"]["text"][at:]
    elif where == "key":
        bad["note" + char] = [{"text": "x"}]
    else:
        bad[where] = bad[where][:at] + char + bad[where][at:]
    folder = tmp_path_factory.mktemp("u")
    # json.dumps writes the surrogate as a \\uXXXX escape: the file itself is valid UTF-8
    (folder / "b.json").write_text(json.dumps(_bundle(_obs("o1"), bad, _obs("o3"))), encoding="utf-8")
    r = load_paths([folder])
    kept = {o.id for o in r.occurrences}
    assert {"Observation/o1", "Observation/o3"} <= kept and "Observation/o2" not in kept
    diagnostics = _issue_for(r, "Bundle.entry[2]")
    assert "string is not valid Unicode (lone UTF-16 surrogate)" in diagnostics, diagnostics
    assert diagnostics.endswith("at code.text; skipped" if where == "code.text" else "; skipped")
    diagnostics.encode("utf-8")


def test_a_surrogate_in_an_ndjson_line_skips_only_that_line(tmp_path):
    lines = [orjson.dumps(PATIENT), orjson.dumps(_obs("o1")), json.dumps(_obs("o2", "creat\udfffinine")).encode(),
             orjson.dumps(_obs("o3"))]
    (tmp_path / "o.ndjson").write_bytes(b"\n".join(lines) + b"\n")
    r = load_paths([tmp_path])
    assert {o.id for o in r.occurrences} == {"Observation/o1", "Observation/o3"}
    assert _issue_for(r, "o.ndjson line 3").endswith("string is not valid Unicode (lone UTF-16 surrogate) "
                                                     "at code.text; skipped")


@pytest.mark.parametrize("raw", [b'{"resourceType": "Bundle", "entry": [\xed\xa0\x80]}',  # UTF-8 of a surrogate
                                 b'{"resourceType": "Patient", "id": "p1", "x": NaN}',
                                 b'{"resourceType": "Patient", "id": "p1",}'])
def test_what_is_not_json_stays_malformed(tmp_path, raw):
    (tmp_path / "m.json").write_bytes(raw)
    r = load_paths([tmp_path])
    assert "malformed JSON; file skipped" in _issue_for(r, "m.json")


def test_a_file_name_that_is_not_utf8_is_shown_and_the_verdict_printed(tmp_path, capsys):
    (tmp_path / "b.json").write_bytes(orjson.dumps(_bundle(_obs("o1"))))
    (tmp_path / os.fsdecode(b"\xff-broken.json")).write_text("{", encoding="utf-8")
    query = {"events": [{"id": "a", "text": "serum creatinine"}, {"id": "b", "text": "acute kidney injury"}],
             "relations": [{"from": "a", "to": "b", "type": "before"}]}
    code = main(["verify", "--bundle", str(tmp_path), "--no-notes", "--query", json.dumps(query)])
    out, err = capsys.readouterr()
    assert code == 0, err
    issues = [i["diagnostics"] for i in json.loads(out)["issues"]]
    assert any(d.endswith("\ufffd-broken.json: malformed JSON; file skipped") for d in issues), issues


def _att(raw: bytes, charset: str) -> dict:
    return {"contentType": f"text/plain; charset={charset}", "data": base64.b64encode(raw).decode()}


@pytest.mark.parametrize(("raw", "charset"), [(b"AKI +2AA- on day 2", "utf-7"),
                                              (b"AKI \\ud800 on day 2", "unicode_escape"),
                                              (b"AKI \\udfff\\ud800 on day 2", "raw_unicode_escape")])
def test_a_charset_that_decodes_to_lone_surrogates_gives_replacement_characters(raw, charset):
    note, problems = decode_attachment(_att(raw, charset), 0, 1000)
    assert note is not None and note.text.startswith("AKI \ufffd") and note.text.endswith(" on day 2")
    note.text.encode("utf-8")
    assert [p.message for p in problems] == [("attachment[0] gives text that is not valid Unicode (lone UTF-16 "
                                             "surrogates); each replaced by U+FFFD")]


@pytest.mark.parametrize("charset", ["zlib_codec", "bz2_codec", "rot13", "hex"])
def test_a_codec_that_is_no_text_charset_is_not_run(charset):
    bomb = zlib.compress(bytes(50_000_000))  # 50 MB of zeros: zlib_codec would inflate all of it
    note, problems = decode_attachment(_att(bomb, charset), 0, 1000, max_bytes=10_000_000)
    assert note is not None and len(note.text) <= 1000
    assert problems[-2].message == "attachment[0] names no known text charset; read as UTF-8, undecodable bytes replaced"


def test_a_charset_that_names_no_codec_reads_as_utf8():
    note, problems = decode_attachment(_att("café".encode(), "x-unknown"), 0, 1000)
    assert note is not None and note.text == "café"
    assert [p.message for p in problems] == [("attachment[0] names no known text charset; read as UTF-8, "
                                             "undecodable bytes replaced")]


def test_every_issue_is_printable(tmp_path: Path):
    (tmp_path / "a.json").write_text(json.dumps(_bundle(_obs("o1\ud800"), _obs("o2", "x\udc00"))), encoding="utf-8")
    r = load_paths([tmp_path])
    assert len([i for i in r.issues if "not valid Unicode" in i.diagnostics]) == 2
    orjson.dumps([i.to_fhir() for i in r.issues])
