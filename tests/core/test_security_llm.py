"""The LLM assessor never sends the patient id, at any scope: scope units go out as opaque
per-bundle labels, and the id is redacted wherever else it would appear. Checked on every
request body the loopback stub endpoint received."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from medeventgraph.core.assess_llm import LLMAssessor, bundle_payload
from medeventgraph.core.contract import EvidenceBundle, bundle_hash
from medeventgraph.core.verdict import Label
from medeventgraph.core.verify import verify_query
from medeventgraph.occurrence import SourceRef

from .helpers import pair
from .test_llm_assessor import PATIENT, llm_settings, make_bundle, server, stub, support_all

__all__ = ["server", "stub"]


@pytest.mark.parametrize("scope", ["encounter", "episode", "patient"])
def test_patient_id_is_in_no_request_at_any_scope(stub, lance, scope):
    stub.judge = support_all
    for a, b in (("vancomycin", "norepinephrine"), ("lisinopril", "hyperkalemia")):
        verify_query(lance, pair(a, b, scope=scope), llm_settings(stub))
    assert stub.requests
    for body in stub.requests:
        text = json.dumps(body)
        assert lance.patient not in text
        assert "Patient/" not in text
        payload = json.loads(body["messages"][1]["content"])
        units = {it["unit"] for it in payload["items"]} - {None}
        assert all(u.startswith("unit-") for u in units), units
        if scope == "patient" and payload["items"]:
            assert units == {"unit-1"}  # the whole record is one unit, and still not named


def _with_patient_everywhere(bundle: EvidenceBundle) -> EvidenceBundle:
    """The items' unit, context and source reference all carry the patient id."""
    items = []
    for k, item in enumerate(bundle.items):
        src = SourceRef("Observation", f"{PATIENT}" if k == 0 else f"obs-{k}")
        items.append(replace(item, unit=f"Patient/{PATIENT}", encounter=None, source=src,
                             occurrence=src.citation, context=f"{item.context} (MRN {PATIENT})"))
    items.sort(key=lambda i: (i.occurrence, i.events))
    q = pair("vancomycin", "creatinine", scope="patient")
    return EvidenceBundle(q, PATIENT, tuple(items), bundle_hash(q, PATIENT, tuple(items)))


def test_redaction_keeps_citations_working(stub):
    bundle = _with_patient_everywhere(make_bundle())
    stub.judge = support_all
    result = LLMAssessor(llm_settings(stub))(bundle)
    text = json.dumps(stub.requests[-1])
    assert PATIENT not in text and "[patient]" in text
    # judgments cite the redacted item id, and still count for the real item
    assert result.label is Label.SUPPORTED
    assert {i.occurrence for i in bundle.items} <= set(result.supporting)


def test_a_short_patient_id_does_not_mangle_dates_or_numbers():
    bundle = make_bundle()
    short = replace(bundle, patient="03")  # appears inside "2024-03-01" and nowhere as a token
    assert bundle_payload(short) == bundle_payload(bundle)
