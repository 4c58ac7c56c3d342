"""The LLM assessor never sends the patient id, at any scope: scope units go out as opaque
per-bundle labels, and the id — with the patient's identifiers and names — is redacted wherever
else it would appear (property-based over ids and payload positions). Checked on every request
body the loopback stub endpoint received."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import replace
from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from medeventgraph.core.answer import verify_query
from medeventgraph.core.decide import assess_llm
from medeventgraph.core.decide.assess_llm import LLMAssessor, bundle_payload
from medeventgraph.core.decide.redaction import patient_terms
from medeventgraph.core.evidence.contract import EvidenceBundle, EvidenceItem, bundle_hash
from medeventgraph.core.query.verdict import Label
from medeventgraph.model.occurrence import SourceRef, Value

from .helpers import pair
from .test_llm_assessor import PATIENT, Stub, llm_settings, make_bundle, server, stub, support_all

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


def test_a_short_patient_id_does_not_mangle_rendered_times():
    bundle = make_bundle()
    short = replace(bundle, patient="03")  # inside the rendered "2024-03-01", and in no record string
    assert bundle_payload(short) == bundle_payload(bundle)


def test_the_patients_identifiers_and_names_are_sent_in_no_request(stub, lance):
    terms = patient_terms(lance.patient, lance.record.resources)
    assert len(terms) >= 4  # Synthea writes MRN, SSN, licence and passport identifiers and a name
    stub.judge = support_all
    verify_query(lance, pair("vancomycin", "norepinephrine"), llm_settings(stub))
    assert stub.requests
    text = stub.requests[-1]["messages"][1]["content"].casefold()
    assert not [t for t in terms if t.casefold() in text]


# Property: wherever the id (or a name or identifier) stands in a record string, it is not sent.

def _encoded(text: str) -> str:
    return "".join(f"%{b:02X}" for b in text.encode())


_POSITIONS: dict[str, Callable[[EvidenceItem, int, str], EvidenceItem]] = {
    "patient scope unit": lambda it, k, p: replace(it, unit=f"Patient/{p}", encounter=None),
    "encounter reference": lambda it, k, p: replace(it, unit=f"Encounter/{p}-enc", encounter=f"Encounter/{p}-enc"),
    "observation reference": lambda it, k, p: _source(it, SourceRef("Observation", f"{p}-{k}")),
    "note reference": lambda it, k, p: _source(it, replace(it.source, resource_id=f"{p}-note")),
    "token in the text": lambda it, k, p: replace(it, context=f"{it.context} Seen for {p} today."),
    "inside a longer token": lambda it, k, p: replace(it, context=f"{it.context} MRN{p}x"),
    "upper case": lambda it, k, p: replace(it, context=f"{it.context} {p.upper()}"),
    "reference in the text": lambda it, k, p: replace(it, context=f"{it.context} (Patient/{p}/_history/2)"),
    "url-encoded": lambda it, k, p: replace(it, context=f"{it.context} ?subject=Patient%2F{quote(p, safe='')}"),
    "fully percent-encoded": lambda it, k, p: replace(it, context=f"{it.context} {_encoded(p)}"),
    "code": lambda it, k, p: replace(it, codes=(*it.codes, f"urn:oid:1.2.3|{p}")),
    "concept": lambda it, k, p: replace(it, concept=f"{it.concept} of {p}"),
    "derived from": lambda it, k, p: replace(it, derived_from=(f"Observation/{p}#value",)),
    "value text": lambda it, k, p: replace(it, value=Value(text=f"see {p}")),
    "status": lambda it, k, p: replace(it, status=f"final/{p}"),
    "section": lambda it, k, p: _source(it, replace(it.source, section=p)),
}


def _source(item: EvidenceItem, src: SourceRef) -> EvidenceItem:
    return replace(item, source=src, occurrence=src.citation)


def _bundle_with(patient: str, name: str, mrn: str, *, positions: list[str]) -> EvidenceBundle:
    base = make_bundle()
    items = []
    for k, item in enumerate(base.items):
        item = replace(item, patient=patient, context=f"{item.context} Mr. {name}, MRN {mrn}.")
        for where in positions:
            item = _POSITIONS[where](item, k, patient)
        items.append(item)
    items.sort(key=lambda i: (i.occurrence, i.events))
    q = base.query
    return EvidenceBundle(q, patient, tuple(items), bundle_hash(q, patient, tuple(items)))


_IDS = st.one_of(
    st.from_regex(r"[A-Za-z0-9\-.]{3,64}", fullmatch=True),  # any FHIR id
    st.uuids().map(str), st.integers(100, 10**12).map(str),
    st.from_regex(r"[a-z]{2,4}-[0-9a-f]{4,12}", fullmatch=True),
)


@settings(max_examples=int(os.environ.get("MEG_FUZZ_EXAMPLES", "60")), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(patient=_IDS, positions=st.lists(st.sampled_from(sorted(_POSITIONS)), min_size=1, max_size=6, unique=True),
       name=st.from_regex(r"[A-Z][a-z]{2,10}[0-9]{0,3}", fullmatch=True),
       mrn=st.from_regex(r"[0-9]{6,10}", fullmatch=True))
def test_the_id_is_sent_from_no_position(server: Stub, patient, positions, name, mrn):
    # what the payload says by itself (field names, the label, rendered times) cannot be checked for
    # a term that occurs in it: such draws are skipped
    marks = ("\u2603p", "\u2603n", "\u2603m")  # placeholders that occur nowhere else
    baseline = json.dumps(bundle_payload(_bundle_with(*marks, positions=positions), marks[1:]),
                          ensure_ascii=False).casefold()
    assume(all(t.casefold() not in baseline for t in (patient, name, mrn)))
    bundle = _bundle_with(patient, name, mrn, positions=positions)
    server.requests.clear()
    server.mode, server.judge = "judge", support_all
    assess_llm._memory.clear()
    result = LLMAssessor(llm_settings(server), patient_terms=(name, mrn))(bundle)
    (body,) = server.requests
    sent = body["messages"][1]["content"].casefold()
    for term in (patient, name, mrn):
        assert term.casefold() not in sent
        assert _encoded(term).casefold() not in sent and quote(term, safe="").casefold() not in sent
    # the judgments cite the redacted ids and still count for every real item
    assert {i.occurrence for i in bundle.items} <= set(result.supporting)
