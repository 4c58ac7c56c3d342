"""The launch context counts: an encounter-scoped question in a launch that named an encounter
is about that encounter; a CDS card's appContext opens the page with its question."""

from __future__ import annotations

import json

from .conftest import LANCE, LANCE_ENCOUNTER, page_context

OTHER_ENCOUNTER = "716c6d0a-2a5d-0aaa-3864-136cad83982c"  # an outpatient visit of Lance's without either drug
QUERY = {"id": "q-enc", "events": [{"id": "e0", "text": "vancomycin", "kind": "medication"},
                                   {"id": "e1", "text": "norepinephrine", "kind": "medication"}],
         "relations": [{"from": "e0", "to": "e1", "type": "before", "within": "PT6H"}], "scope": "encounter"}


def _ask(smart_service, encounter: str | None) -> dict:
    browser = smart_service.browser().login(encounter=encounter)
    resp = browser.verify({"query": QUERY})
    assert resp.status_code == 200, resp.text
    return resp.json()


def test_one_encounter_means_the_launch_encounter(smart_service):
    inside = _ask(smart_service, LANCE_ENCOUNTER)
    assert inside["verdict"] == "supported"
    assert {e["encounter"] for e in inside["evidence"]} == {f"Encounter/{LANCE_ENCOUNTER}"}
    assert inside["page"]["encounter"] == LANCE_ENCOUNTER

    elsewhere = _ask(smart_service, OTHER_ENCOUNTER)  # same record, launched in another encounter
    assert elsewhere["verdict"] == "insufficient" and elsewhere["failure"] == "missing_endpoint"
    assert not elsewhere["evidence"]
    assert elsewhere["page"]["finding"]["summary"].startswith("Neither vancomycin nor norepinephrine")

    anywhere = _ask(smart_service, None)  # no launch encounter: any single encounter
    assert anywhere["verdict"] == "supported" and anywhere["page"]["encounter"] is None


def test_the_page_payload_speaks_plainly_and_holds_each_entrys_source(smart_service):
    v = _ask(smart_service, LANCE_ENCOUNTER)
    page = v["page"]
    assert page["finding"]["summary"] == "Norepinephrine documented 1 hour 30 minutes after vancomycin (3 → 4 Feb 2015)"
    assert "S+" not in page["finding"]["checked"] and page["finding"]["audit"].startswith("Audit: supported")
    assert page["timeline"].startswith("<svg") and 'class="pair"' in page["timeline"]
    assert set(page["sources"]) == {e["occurrence"] for e in v["evidence"]}
    by_id = {e["occurrence"]: e for e in v["evidence"]}
    notes = {k: s for k, s in page["sources"].items() if s["type"] == "note"}
    rows = [s for s in page["sources"].values() if s["type"] == "row"]
    assert notes and rows
    for occurrence, note in notes.items():  # the span slices the note's own text back to the mention
        assert note["text"][note["start"]:note["end"]].lower() == by_id[occurrence]["concept"].lower()
    assert all(json.loads(r["json"])["id"] == r["reference"].split("/")[1] for r in rows)


def test_card_app_context_opens_the_page_with_its_question(smart_service):
    context = json.dumps({"patient": LANCE, "query": QUERY, "verdict": "q-enc"})
    browser = smart_service.browser().login(app_context=context)
    assert page_context(browser.page)["initial_query"] == QUERY


def test_app_context_for_another_patient_is_ignored(smart_service):
    context = json.dumps({"patient": "someone-else", "query": QUERY})
    browser = smart_service.browser().login(app_context=context)
    assert page_context(browser.page)["initial_query"] is None
