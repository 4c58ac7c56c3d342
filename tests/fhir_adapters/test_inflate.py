"""gzip input is inflated in bounded steps: a bomb is refused in memory near one step (issue 22),
and what fits is read exactly as the whole file would be."""

from __future__ import annotations

import gzip
import itertools
import subprocess
import sys
import zlib

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from medeventgraph.fhir_adapters import load_paths
from medeventgraph.fhir_adapters.inflate import OUT_STEP, TooLarge, could_exceed, inflated_pieces, lines_of
from medeventgraph.fhir_adapters.limits import InputLimits

MIB = 1024 * 1024
SUBJ = {"reference": "Patient/p1"}

# The child reports its own peak resident memory (ru_maxrss, KiB on Linux) after reading `path`
# with the default limits, and the issue codes it got.
_CHILD = """
import resource, sys
from medeventgraph.fhir_adapters import load_paths
r = load_paths([sys.argv[1]])
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024, *sorted(i.code for i in r.issues))
"""


def _obs(oid: str) -> dict:
    return {"resourceType": "Observation", "id": oid, "status": "final", "subject": SUBJ,
            "code": {"text": "creatinine"}, "effectiveDateTime": "2015-02-04T06:00:00Z",
            "valueQuantity": {"value": 1.2, "unit": "mg/dL"}}


def _bomb(path, inflated_mib: int) -> None:
    """`inflated_mib` MiB of zeros as repeated 16 MiB gzip members: about 1 MB on disk per GiB."""
    member = gzip.compress(bytes(16 * MIB), compresslevel=9)
    with open(path, "wb") as f:
        f.writelines(member for _ in range(inflated_mib // 16))


def _peak_and_codes(path) -> tuple[int, list[str]]:
    done = subprocess.run([sys.executable, "-c", _CHILD, str(path)], capture_output=True, text=True, timeout=600,
                          check=True)
    peak, *codes = done.stdout.split()
    return int(peak), codes


def test_a_gigabyte_bomb_is_refused_in_memory_near_one_step(tmp_path):
    _bomb(tmp_path / "bomb.ndjson.gz", 1024)  # 1 GiB of zeros
    assert (tmp_path / "bomb.ndjson.gz").stat().st_size < 2 * MIB
    (tmp_path / "small.ndjson.gz").write_bytes(gzip.compress(orjson.dumps(_obs("o1")) + b"\n"))
    baseline, ok_codes = _peak_and_codes(tmp_path / "small.ndjson.gz")
    peak, codes = _peak_and_codes(tmp_path / "bomb.ndjson.gz")
    assert ok_codes == [] and codes == ["too-long"]  # refused by the default MEG_MAX_INFLATED_BYTES (256 MiB)
    # Holding what was inflated up to the cap would add 256 MiB; measuring in steps adds a few.
    assert peak - baseline < 64 * MIB, (peak, baseline)


def test_a_file_within_the_cap_is_read_whole_after_it_is_measured(tmp_path):
    lines = b"".join(orjson.dumps(_obs(f"o{i}")) + b"\n" for i in range(4000))  # ~1 MiB, repetitive
    data = gzip.compress(lines)
    cap = len(lines) + 1
    assert could_exceed(len(data), cap)  # so it is measured before anything is kept
    (tmp_path / "obs.ndjson.gz").write_bytes(data)
    (tmp_path / "bundle.json.gz").write_bytes(gzip.compress(orjson.dumps(
        {"resourceType": "Bundle", "type": "collection",
         "entry": [{"resource": {"resourceType": "Patient", "id": "p1"}}, {"resource": _obs("b1")}]})))
    r = load_paths([tmp_path], limits=InputLimits(max_inflated_bytes=cap))
    assert len(r.occurrences) == 4001 and not r.issues
    r = load_paths([tmp_path], limits=InputLimits(max_inflated_bytes=len(lines) - 1))
    assert [i.code for i in r.issues] == ["too-long"] and [o.id for o in r.occurrences] == ["Observation/b1"]


def test_a_truncated_member_after_a_good_one_skips_the_whole_file(tmp_path):
    good = gzip.compress(orjson.dumps(_obs("o1")) + b"\n")
    cut = gzip.compress(b"".join(orjson.dumps(_obs(f"o{i}")) + b"\n" for i in range(2, 400)))[:-40]
    (tmp_path / "a.ndjson.gz").write_bytes(good + cut)
    r = load_paths([tmp_path])
    assert r.occurrences == [] and [i.code for i in r.issues] == ["structure"]


@settings(max_examples=60, deadline=None, database=None)
@given(st.lists(st.binary(max_size=3000), min_size=1, max_size=4), st.integers(1, 9))
def test_pieces_are_the_members_inflated(members, level):
    data = b"".join(gzip.compress(m, compresslevel=level) for m in members)
    pieces = list(inflated_pieces(data, cap=10 * MIB))
    assert b"".join(pieces) == b"".join(members)
    assert all(0 < len(p) <= OUT_STEP for p in pieces)


def test_pieces_stop_past_the_cap_and_name_a_cut_stream():
    data = gzip.compress(bytes(5 * MIB))
    with pytest.raises(TooLarge):
        for _ in inflated_pieces(data, cap=3 * MIB):
            pass
    with pytest.raises(EOFError):
        list(inflated_pieces(data[:-12], cap=10 * MIB))
    with pytest.raises(zlib.error):
        list(inflated_pieces(b"\x1f\x8bnot gzip at all", cap=10 * MIB))


@settings(max_examples=100, deadline=None, database=None)
@given(st.binary(max_size=400).map(lambda b: b.replace(b"\x00", b"\n")), st.lists(st.integers(0, 400), max_size=6))
def test_lines_of_pieces_are_the_lines_of_the_whole(text, cuts):
    bounds = sorted({0, len(text), *(c for c in cuts if c <= len(text))})
    pieces = [text[a:b] for a, b in itertools.pairwise(bounds)]
    expected = text.split(b"\n")
    if expected and expected[-1] == b"":
        expected.pop()
    assert list(lines_of(iter(pieces))) == expected
