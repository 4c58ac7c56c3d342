"""The SMART page in a real browser (Debian's chromium driven by Playwright): launch from the
loopback EHR, ask, and check what a clinician sees — the plain-language verdict line, the
timeline's marks and deciding pair, a mark's source — with no console errors. Saves a
screenshot to results/smart_timeline.png for people to look at."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from ..conftest import REPO, missing
from .conftest import LANCE, LANCE_ENCOUNTER

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
QUESTION = "Was norepinephrine given after vancomycin within the same encounter?"
SCREENSHOT = REPO / "results" / "smart_timeline.png"
# What the Synthea record says of Lance (tests/data/synthea): his name, birth date and the stay.
PATIENT_WORDS, BORN = "Lance203 Jamel269 Padberg411", "23 Jun 1964"
ENCOUNTER_WORDS = "Emergency visit · Encounter for problem · 3–9 Feb 2015"


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        missing("playwright is not installed (pip install -e '.[test]')")
    if not Path(CHROMIUM).exists():
        missing("chromium is not installed (make test installs it with apt-get)")
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        yield b
        b.close()


def _open(browser, smart_service, **launch):
    page = browser.new_page(viewport={"width": 1200, "height": 1000})
    problems: list[str] = []
    page.on("console", lambda m: problems.append(f"console {m.type}: {m.text}") if m.type == "error" else None)
    page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
    launch_id = smart_service.ehr.launch(LANCE, launch.get("encounter", LANCE_ENCOUNTER), launch.get("app_context"))
    page.goto(f"{smart_service.base}/smart/launch?iss={smart_service.ehr.fhir_base}&launch={launch_id}")
    page.wait_for_url("**/smart/app")
    return page, problems


def test_question_draws_the_timeline_and_opens_sources(browser, smart_service):
    page, problems = _open(browser, smart_service)
    assert page.locator("#b-encounter").text_content() == ENCOUNTER_WORDS
    assert page.locator("#enc-scope-label").text_content() == "this encounter"
    page.fill("#q", QUESTION)
    page.click("#go")
    page.wait_for_selector("#timeline svg .mark", timeout=180_000)

    assert page.locator("#verdict").get_attribute("data-verdict") == "supported"
    assert page.locator("#verdict .label").text_content() == "Documented"
    summary = page.locator("#summary").text_content()
    assert summary.startswith("Norepinephrine documented") and "after vancomycin" in summary
    assert "S+" not in page.locator("#verdict").text_content()

    marks = page.locator("#timeline .mark")
    assert marks.count() >= 4
    assert page.locator("#timeline .mark.supports").count() >= 2
    assert page.locator("#timeline .mark.note").count() >= 1 and page.locator("#timeline .mark.structured").count() >= 1
    assert page.locator("#timeline .mark[data-range=yes]").count() >= 1  # the notes' "no later than" ranges
    assert page.locator("#overview .pair[data-timing=compatible]").count() == 1
    # 90 minutes in a six-day stay: the page adds a close-up of the deciding pair.
    pair = page.locator("#close-up .pair[data-timing=compatible]")
    assert pair.count() == 1
    assert pair.locator(".pair-label").text_content() == "+1 h 30 min"
    for end in ("data-from", "data-to"):
        occ = pair.get_attribute(end)
        assert page.locator(f'#timeline .mark.supports[data-occurrence="{occ}"]').count() >= 1
    assert all(m.get_attribute("aria-label") for m in marks.all()) and marks.first.get_attribute("tabindex") == "0"
    assert page.locator("#timeline .encounter").count() >= 1

    # A structured mark: its row and JSON path.
    page.locator("#timeline .mark.structured.supports").first.click()
    assert page.locator("#source").is_visible()
    row = page.locator("#source-row").text_content()  # in the cards' words, not the index's rendering
    assert re.match(r"\d{1,2} Feb 2015 \d\d:\d\d · Medication given: ", row) and "(second)" not in row, row
    assert json.loads(page.locator("#source-json").text_content())["resourceType"] == "MedicationAdministration"

    # A note mark, by keyboard: the note's full text with the span highlighted and in view.
    note = page.locator("#timeline .mark.note").first
    note.focus()
    page.keyboard.press("Enter")
    highlight = page.locator("#note-text #hl")
    assert highlight.count() == 1
    assert highlight.text_content().lower() in note.get_attribute("aria-label").lower()
    box, hl = page.locator("#note-text").bounding_box(), highlight.bounding_box()
    assert box["y"] <= hl["y"] and hl["y"] + hl["height"] <= box["y"] + box["height"]

    SCREENSHOT.parent.mkdir(exist_ok=True)
    page.locator("#timeline .mark.structured.supports").first.click()
    page.screenshot(path=str(SCREENSHOT), full_page=True)
    assert problems == []
    page.close()


def test_card_link_opens_with_its_question_answered(browser, smart_service):
    query = {"id": "from-card", "events": [{"id": "e0", "text": "vancomycin", "kind": "medication"},
                                           {"id": "e1", "text": "acute kidney injury", "kind": "condition"}],
             "relations": [{"from": "e0", "to": "e1", "type": "before", "within": "P7D"}], "scope": "encounter"}
    page, problems = _open(browser, smart_service, app_context=json.dumps({"patient": LANCE, "query": query}))
    page.wait_for_selector("#verdict", timeout=180_000)  # asked without a click
    assert json.loads(page.locator("#q").input_value()) == query
    assert page.locator("#summary").text_content().startswith("No AKI documented after vancomycin")
    assert page.locator("#timeline .mark").count() >= 1
    assert problems == []
    page.close()


def test_the_header_names_the_patient_and_the_encounter_as_the_ehr_does(browser, smart_service):
    page, problems = _open(browser, smart_service)
    header = page.locator("header")
    assert page.locator("#b-patient").text_content() == PATIENT_WORDS
    assert page.locator("#b-born").text_content() == BORN and page.locator("#b-born-wrap").is_visible()
    assert page.locator("#b-encounter").text_content() == ENCOUNTER_WORDS
    # the EHR's fhirUser (Practitioner/test-user) is not on its FHIR server: no user shown, never the id
    assert not page.locator("#b-user-wrap").is_visible()
    shown = header.inner_text()
    for raw in (LANCE, LANCE_ENCOUNTER, "Patient/", "Encounter/", "Practitioner/"):
        assert raw not in shown, raw
    assert problems == []
    page.close()


def test_the_header_falls_back_to_neutral_words_when_the_record_cannot_be_read(browser, smart_service):
    smart_service.ehr.failing_types.update({"Patient", "Encounter"})
    try:
        page, problems = _open(browser, smart_service)
    finally:
        smart_service.ehr.failing_types.difference_update({"Patient", "Encounter"})
    assert page.locator("#b-patient").text_content() == "this patient"
    assert not page.locator("#b-born-wrap").is_visible()
    assert page.locator("#b-encounter").text_content() == "this encounter"
    shown = page.locator("header").inner_text()
    assert LANCE not in shown and LANCE_ENCOUNTER not in shown
    assert problems == []
    page.close()
