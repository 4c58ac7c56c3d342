"""The hook bench's cold call is a patient the service has never seen: every note text the record
carries is new (DocumentReference and DiagnosticReport alike), and a text two resources repeat
stays one text (never a time)."""

from __future__ import annotations

import base64
from types import ModuleType

import orjson
import pytest


@pytest.fixture(scope="module")
def bench_hook(benchmarks_on_path) -> ModuleType:
    import bench_hook

    return bench_hook


def _texts(hook, prefetch) -> list[bytes]:
    return [base64.b64decode(a["data"]) for a in hook._note_attachments(prefetch) if "data" in a]


def test_fresh_renews_every_note_text_and_keeps_repeats_equal(bench_hook, synthea_dir):
    bundle = min(synthea_dir.glob("Stanton*.json"), default=None) or next(
        p for p in sorted(synthea_dir.glob("*.json")) if not p.name.startswith(("hospital", "practitioner")))
    _, prefetch = bench_hook.prefetch_for(orjson.loads(bundle.read_bytes()))
    before = _texts(bench_hook, prefetch)
    if not any(e["resource"].get("presentedForm") for e in prefetch["diagnosticReports"]["entry"]):
        pytest.skip("this bundle has no DiagnosticReport note")
    after = _texts(bench_hook, bench_hook._fresh(prefetch, 5))
    assert len(after) == len(before) and not set(after) & set(before)  # every text new
    assert len(set(after)) == len(set(before))  # repeated texts stay repeated
    assert all(a.rstrip() == b.rstrip() for a, b in zip(after, before, strict=True))  # the same words
