"""The order of telling and the past history as placements: sentences written for these tests."""

from __future__ import annotations

from dataclasses import replace

import pytest
from medeventgraph.nlp.narrative import (
    COUNTED_TIMES,
    EARLIER_SECTION,
    HISTORY_FIRST,
    PAST_BEFORE_PRESENT,
    PHASE_CUE,
    TOLD_IN_ORDER,
    counted_order,
    names_purpose,
    note_layout,
    phase_order,
    told_order,
)
from medeventgraph.nlp.relations import check_order, find_relation


def span(text: str, words: str, nth: int = 0) -> tuple[int, int]:
    start = -1
    for _ in range(nth + 1):
        start = text.index(words, start + 1)
    return start, start + len(words)


HPI = ("HISTORY OF PRESENT ILLNESS: ,The patient was given vancomycin in the clinic for cellulitis.  "
       "Over the next hours she developed a diffuse rash and was sent to the emergency room.,"
       "PLAN: ,Stop vancomycin.  Consider an allergy referral if the rash returns.")


def test_layout_reads_run_in_headings_and_sentences():
    layout = note_layout(HPI)
    assert [s.role for s in layout.sections] == ["history_of_present_illness", "plan"]
    texts = [HPI[s.start:s.end] for s in layout.sentences]
    assert texts[0] == "The patient was given vancomycin in the clinic for cellulitis."
    assert texts[2] == "Stop vancomycin."


def test_an_impression_heading_of_any_wording_is_an_assessment():
    text = ("HISTORY: He was transfused for melena.,LABORATORY DATA: Hemoglobin 8.,"
            "IMPRESSION/PLAN,1.  Melena from esophagitis.")
    assert [s.role for s in note_layout(text).sections] == ["indication", "labs_and_studies", "assessment"]
    # the assessment names a state: the history's act is not placed before it as an earlier section is
    placed = phase_order(text, span(text, "transfused"), span(text, "Melena from"))
    assert placed is None or placed.rule == PAST_BEFORE_PRESENT


@pytest.mark.parametrize("text", [
    "ADMITTING DIAGNOSES,1.  Pneumonia.,2.  Dehydration.,HOSPITAL COURSE: ,She was given ceftriaxone.",
    "ADMITTING DIAGNOSES\n1. Pneumonia.\n2. Dehydration.\nHOSPITAL COURSE:\nShe was given ceftriaxone.",
])
def test_a_title_without_a_colon_before_a_numbered_list_is_a_heading(text):
    # flattened dictation writes the first heading without its colon, its list numbered after it
    assert [s.role for s in note_layout(text).sections] == ["admission_diagnosis", "hospital_course"]
    placed = phase_order(text, span(text, "ceftriaxone"), span(text, "Pneumonia"))
    assert placed is not None and placed.earlier == span(text, "Pneumonia")
    # a capitalised word before a number in running text is no heading
    assert note_layout("BUN, 12 mg/dL.,CREATININE, 1.1.").sections == ()


def test_a_recent_time_on_the_way_places_only_its_own_sentence():
    text = ("HISTORY OF PRESENT ILLNESS: She developed a rash on her arms.  Last night she felt feverish.  "
            "She was given vancomycin in the emergency room.")
    placed = told_order(text, span(text, "vancomycin"), span(text, "rash"))
    assert placed is not None and placed.earlier == span(text, "rash")


def test_a_present_perfect_tells_past_events_in_order():
    text = ("HISTORY OF PRESENT ILLNESS: For two weeks she has been taking vancomycin for an abscess.  "
            "She developed a rash and came to the emergency room.")
    placed = told_order(text, span(text, "rash"), span(text, "vancomycin"))
    assert placed is not None and placed.rule == TOLD_IN_ORDER and placed.earlier == span(text, "vancomycin")


def test_a_time_just_before_the_note_follows_what_was_told_before_it():
    text = ("HISTORY OF PRESENT ILLNESS: She was started on vancomycin by her doctor.  "
            "Yesterday she developed a rash on her arms.")
    placed = told_order(text, span(text, "rash"), span(text, "vancomycin"))
    assert placed is not None and placed.earlier == span(text, "vancomycin")


def test_a_time_just_before_the_note_steps_back_from_the_presentation():
    text = ("HISTORY OF PRESENT ILLNESS: She was admitted with a rash on her arms.  "
            "Yesterday she was given vancomycin by her dentist.")
    assert told_order(text, span(text, "rash"), span(text, "vancomycin")) is None


def test_told_in_order_in_a_narrative_section():
    a, b = span(HPI, "vancomycin"), span(HPI, "rash")
    placed = told_order(HPI, b, a)
    assert placed is not None and placed.rule == TOLD_IN_ORDER
    assert (placed.earlier, placed.later) == (a, b)
    assert HPI[placed.cue_start:placed.cue_end] == "HISTORY OF PRESENT ILLNESS"


@pytest.mark.parametrize("text", [
    "HOSPITAL COURSE: She was given vancomycin, and prior to discharge she developed a rash.",
    "HOSPITAL COURSE: She received vancomycin.  Prior to her transfer, a rash was noted.",
])
def test_prior_to_discharge_is_the_end_of_the_story_not_a_step_back(text):
    placed = told_order(text, span(text, "ancomycin"), span(text, "ash"))
    assert placed is not None and placed.earlier == span(text, "ancomycin")


@pytest.mark.parametrize("text", [
    # a prior study steps back, whatever follows
    "HOSPITAL COURSE: She received vancomycin.  A prior CT had shown a rash.",
    "HOSPITAL COURSE: She received vancomycin.  Prior to admission she had a rash.",
    # one sentence, one clause: a list is not a sequence
    "HISTORY OF PRESENT ILLNESS: She was given vancomycin and a cream for her rash.",
    # a past perfect steps back in time
    "HISTORY OF PRESENT ILLNESS: She developed a rash.  She had been given vancomycin by her dentist.",
    # the later sentence states its own time, which decides instead
    "HISTORY OF PRESENT ILLNESS: She developed a rash.  Three years ago she received vancomycin.",
    # a date told on the way may set the frame of what follows
    "HISTORY OF PRESENT ILLNESS: She developed a rash.  In 2015 she had pneumonia.  She received vancomycin.",
    # not a narrative section: a plan, a medication list
    "PLAN: Vancomycin was discussed.  A rash was explained to her.",
    "MEDICATIONS: Vancomycin was listed.  Rash cream was listed.",
    # different sections
    "HISTORY OF PRESENT ILLNESS: She received vancomycin.,HOSPITAL COURSE: She developed a rash.",
    # present tense: a state at the time of the note, not an event told in sequence
    "HISTORY OF PRESENT ILLNESS: She is on vancomycin.  She has a rash.",
])
def test_no_told_order(text):
    assert told_order(text, span(text, "ancomycin"), span(text, "ash")) is None


@pytest.mark.parametrize("text", [
    # a day of the stay, of the operation or of life at each end: the days decide, not the telling
    "HOSPITAL COURSE: She developed a rash on hospital day 4.  She received vancomycin on hospital day 2.",
    "HOSPITAL COURSE: She developed a rash on HD #4.  She received vancomycin on HD #2.",
    "HOSPITAL COURSE: She developed a rash on POD 3.  She received vancomycin on postoperative day 1.",
    "HOSPITAL COURSE: On the third hospital day she developed a rash.  She was given vancomycin on the first hospital day.",
    "HOSPITAL COURSE: A rash was noted on day of life 5.  Vancomycin was started on DOL 2.",
    # an hour, a part of the day, an age
    "HOSPITAL COURSE: At 0600 she developed a rash.  She received vancomycin at 0200.",
    "HOSPITAL COURSE: She developed a rash at 6:30 p.m.  She received vancomycin at 2 p.m.",
    "HISTORY OF PRESENT ILLNESS: She developed a rash this afternoon.  She received vancomycin this morning.",
    "HISTORY OF PRESENT ILLNESS: She developed a rash at 3 weeks of age.  She received vancomycin at 2 weeks of age.",
    # the ends of the stay told in reverse at both ends
    "HOSPITAL COURSE: She developed a rash on the day of discharge.  She received vancomycin on admission.",
    # a day of the stay told after an untimed event steps back as a date would
    "HOSPITAL COURSE: She developed a rash.  She was given vancomycin on hospital day 2.",
    "HOSPITAL COURSE: She developed a rash.  Preoperatively she was given vancomycin.",
])
def test_times_of_the_stay_at_both_ends_decide_instead_of_the_telling(text):
    assert told_order(text, span(text, "rash"), span(text, "ancomycin")) is None


@pytest.mark.parametrize("text", [
    # the same day of the stay at both ends: the telling orders what the day leaves open
    "HOSPITAL COURSE: On hospital day 2 she was given vancomycin.  On hospital day 2 she developed a rash.",
    # a day of the stay before, none after: told in order
    "HOSPITAL COURSE: She was given vancomycin on hospital day 2.  She then developed a rash.",
    # counted on one scale, the later no less: the telling agrees with the times
    "HOSPITAL COURSE: She was given vancomycin on hospital day 2.  On hospital day 4 she developed a rash.",
    "HOSPITAL COURSE: She was given vancomycin on POD #1.  On the third postoperative day she developed a rash.",
    "HISTORY OF PRESENT ILLNESS: She was given vancomycin this morning.  This evening she developed a rash.",
    # the ends of the stay in their order; an end of the stay at one end only weighs nothing
    "HOSPITAL COURSE: She received vancomycin on admission.  At discharge she had a rash.",
    "HOSPITAL COURSE: She was given vancomycin 3 days ago.  On arrival she had a rash.",
    # a dose is no hour
    "HOSPITAL COURSE: She was given vancomycin at 1000 mg daily.  She developed a rash at 2 weeks.",
])
def test_a_time_of_the_stay_that_leaves_the_order_open_keeps_the_telling(text):
    placed = told_order(text, span(text, "ancomycin"), span(text, "rash"))
    assert placed is not None and placed.rule == TOLD_IN_ORDER and placed.earlier == span(text, "ancomycin")


@pytest.mark.parametrize(("text", "cue"), [
    # told in reverse, each with its own count on one scale: the lower count first
    ("HOSPITAL COURSE: She developed a rash on hospital day 4.  She received vancomycin on hospital day 2.",
     "hospital day 2"),
    ("HOSPITAL COURSE: She developed a rash on HD #4.  She received vancomycin on HD #2.", "HD #2"),
    (("HOSPITAL COURSE: On the third hospital day she developed a rash.  She was given vancomycin on the first "
     "hospital day."), "first hospital day"),
    ("HOSPITAL COURSE: She developed a rash on POD 3.  She received vancomycin on postoperative day 1.",
     "postoperative day 1"),
    ("HOSPITAL COURSE: A rash was noted on day of life 5.  Vancomycin was started on DOL 2.", "DOL 2"),
    ("HISTORY OF PRESENT ILLNESS: She developed a rash this afternoon.  She received vancomycin this morning.",
     "this morning"),
    (("HISTORY OF PRESENT ILLNESS: She developed a rash at 3 weeks of age.  She received vancomycin at 10 days "
     "of age."), "10 days of age"),
    # told in order, and in two main clauses of one sentence; sections apart
    ("HOSPITAL COURSE: She was given vancomycin on hospital day 2.  On hospital day 4 she developed a rash.",
     "hospital day 2"),
    ("HOSPITAL COURSE: She developed a rash on hospital day 5, and she had received vancomycin on hospital day 3.",
     "hospital day 3"),
    (("HISTORY OF PRESENT ILLNESS: She received vancomycin on hospital day 2 at the outside hospital.,"
     "PHYSICAL EXAMINATION: On hospital day 6 a rash was seen."), "hospital day 2"),
])
def test_counted_times_order_two_mentions_whichever_is_told_first(text, cue):
    placed = counted_order(text, span(text, "rash"), span(text, "ancomycin"))
    assert placed is not None and placed.rule == COUNTED_TIMES
    assert placed.earlier == span(text, "ancomycin") and placed.later == span(text, "rash")
    assert text[placed.cue_start:placed.cue_end] == cue
    found = find_relation(text, span(text, "ancomycin"), span(text, "rash"))
    assert found is not None and found.rule == COUNTED_TIMES and check_order(text, found)
    assert not check_order(text, replace(found, earlier=found.later, later=found.earlier))


@pytest.mark.parametrize("text", [
    # one day at both ends; two scales; a count at one end only
    "HOSPITAL COURSE: She developed a rash on hospital day 2.  She received vancomycin on hospital day 2.",
    "HOSPITAL COURSE: She developed a rash on hospital day 4.  She received vancomycin on POD 2.",
    "HOSPITAL COURSE: She developed a rash on hospital day 4.  She received vancomycin.",
    # an hour starts again each day: "at 0200" may be the next night's
    "HOSPITAL COURSE: At 0600 she developed a rash.  She received vancomycin at 0200.",
    # a bound, not a day
    "HOSPITAL COURSE: By hospital day 4 she had a rash.  She received vancomycin on hospital day 2.",
    "HOSPITAL COURSE: She had a rash until hospital day 4.  She received vancomycin on hospital day 2.",
    # a sentence with two counts, or another time of its own
    ("HOSPITAL COURSE: She developed a rash on hospital day 4.  She received vancomycin on hospital day 2 and "
    "hospital day 6."),
    "HOSPITAL COURSE: She developed a rash on hospital day 4.  She received vancomycin 3 days ago on hospital day 2.",
    # the later mention a state that went on, or told as having come first
    "HOSPITAL COURSE: She received vancomycin on hospital day 2.  On hospital day 4 the rash had resolved.",
    "HOSPITAL COURSE: She received vancomycin on hospital day 2.  On hospital day 4 her rash had improved.",
    # another stay's days, in the past history
    ("PAST MEDICAL HISTORY: She received vancomycin on hospital day 2 of another stay.,"
    "HOSPITAL COURSE: She developed a rash on hospital day 4."),
    # one clause holds both
    "HOSPITAL COURSE: On hospital day 4 she developed a rash after vancomycin on hospital day 2.",
])
def test_no_counted_order(text):
    assert counted_order(text, span(text, "rash"), span(text, "ancomycin")) is None


def test_history_before_the_episode():
    text = ("PAST SURGICAL HISTORY: ,Appendectomy.,HISTORY OF PRESENT ILLNESS: ,She presented with "
            "right lower quadrant pain and was found to have a small bowel obstruction.")
    placed = phase_order(text, span(text, "small bowel obstruction"), span(text, "Appendectomy"))
    assert placed is not None and placed.rule == HISTORY_FIRST
    assert placed.earlier == span(text, "Appendectomy")
    assert text[placed.cue_start:placed.cue_end] == "PAST SURGICAL HISTORY"
    cue = "HISTORY OF PRESENT ILLNESS: He is status post coronary stenting and was admitted with chest pain."
    placed = phase_order(cue, span(cue, "chest pain"), span(cue, "coronary stenting"))
    assert placed is not None and cue[placed.cue_start:placed.cue_end] == "status post"


def test_history_mention_told_in_a_past_sentence_is_not_the_episode():
    text = ("HISTORY OF PRESENT ILLNESS: He had been on hemodialysis for years.,"
            "PAST SURGICAL HISTORY: Kidney transplant.")
    assert phase_order(text, span(text, "hemodialysis"), span(text, "Kidney transplant")) is None


def test_a_placement_is_rechecked_from_the_text():
    a, b = span(HPI, "vancomycin"), span(HPI, "rash")
    found = find_relation(HPI, a, b)
    assert found is not None and check_order(HPI, found)
    # a cue span the note does not hold there, another rule, or swapped mentions: refused
    assert not check_order(HPI, replace(found, cue_start=found.cue_start + 1))
    assert not check_order(HPI, replace(found, rule=HISTORY_FIRST))
    assert not check_order(HPI, replace(found, earlier=found.later, later=found.earlier))
    moved = HPI.replace("HISTORY OF PRESENT ILLNESS", "MEDICATIONS               ")
    assert not check_order(moved, replace(found, cue=moved[found.cue_start:found.cue_end]))


def test_phases_of_an_operative_note():
    text = ("PREOPERATIVE DIAGNOSIS: ,Right ureteral stone.,PROCEDURE PERFORMED: ,Right ureteroscopy and "
            "laser lithotripsy.,ANESTHESIA: ,General.  Cefazolin was given preoperatively.  Postoperatively "
            "she had a fever.")
    by_section = phase_order(text, span(text, "ureteroscopy"), span(text, "ureteral stone"))
    assert by_section is not None and by_section.rule == EARLIER_SECTION
    assert by_section.earlier == span(text, "ureteral stone")
    assert text[by_section.cue_start:by_section.cue_end] == "PREOPERATIVE DIAGNOSIS"
    before = phase_order(text, span(text, "ureteroscopy"), span(text, "Cefazolin"))
    assert before is not None and before.rule == PHASE_CUE and before.earlier == span(text, "Cefazolin")
    assert text[before.cue_start:before.cue_end] == "preoperatively"
    after = phase_order(text, span(text, "fever"), span(text, "lithotripsy"))
    assert after is not None and after.earlier == span(text, "lithotripsy")


@pytest.mark.parametrize(("text", "act", "purpose"), [
    ("INDICATION: ,Venogram for left ventricular lead placement.", "left ventricular lead placement", True),
    ("HISTORY: ,She was admitted for an elective cholecystectomy.", "cholecystectomy", True),
    ("HISTORY: ,She was referred for possible repeat colonoscopy.", "colonoscopy", True),
    ("INDICATION: ,Positive nuclear stress test.", "nuclear stress test", False),
    ("HISTORY: ,The colonoscopy for her anemia was normal.", "colonoscopy", False),
    ("HISTORY: ,She was treated for 2 weeks, then a colonoscopy was done.", "colonoscopy", False),
])
def test_an_act_named_as_a_purpose(text, act, purpose):
    assert names_purpose(text, span(text, act)) is purpose


def test_an_indication_is_the_presentation():
    text = ("INDICATION: ,The patient presented with painless hematuria.,PROCEDURE: ,Under sedation a "
            "cystoscopy was performed and a bladder biopsy was taken.")
    placed = phase_order(text, span(text, "bladder biopsy"), span(text, "hematuria"))
    assert placed is not None and placed.rule == EARLIER_SECTION and placed.earlier == span(text, "hematuria")
    assert text[placed.cue_start:placed.cue_end] == "INDICATION"


@pytest.mark.parametrize(("text", "first", "second", "rule"), [
    # a window's extreme: the same number (the extreme may be the reading itself)
    ("VITALS: Tmax 38.4, temperature 38.4.", "Tmax 38.4", "temperature 38.4", "window-extreme"),
    # the other reading is told as a past one too
    ("VITALS: Tmax 38.4.  On admission temperature was 36.5.", "Tmax 38.4", "temperature was 36.5", "window-extreme"),
    # another section: not told beside it
    ("VITALS: Tmax 38.4.,LABS: ,Temperature 36.5.", "Tmax 38.4", "Temperature 36.5", "window-extreme"),
    # a change's end: "up to" alone is a most, not a change
    ("VITALS: Temperature 37.2.  She had temperatures of up to 39.4.", "Temperature 37.2", "temperatures of up to 39.4",
     "change-end"),
    # the later sentence steps back; another section
    ("ASSESSMENT: Sodium 131.  Previously her sodium had dropped to 124.", "Sodium 131", "sodium had dropped to 124",
     "change-end"),
    ("ASSESSMENT: Sodium 131.,PLAN: ,Sodium has dropped to 124.", "Sodium 131", "Sodium has dropped to 124",
     "change-end"),
])
def test_no_value_order_where_the_text_leaves_it_open(text, first, second, rule):
    found = find_relation(text, span(text, first), span(text, second))
    assert found is None or found.rule != rule


def test_a_subheading_continues_its_section():
    text = ("PHYSICAL EXAMINATION: ,VITAL SIGNS: Stable.,HEENT: Normal.,PAST MEDICAL HISTORY: ,Asthma.")
    assert [s.role for s in note_layout(text).sections] == ["physical_exam", "past_medical_history"]


@pytest.mark.parametrize(("text", "earlier", "later", "rule"), [
    ("Her potassium rose from 4.1 to 6.2 overnight.", "potassium rose from 4.1", "potassium rose from 4.1 to 6.2",
     "stated-change"),
    ("Lactate 1.8 down from 4.4 this morning.", "Lactate 1.8 down from 4.4", "Lactate 1.8", "stated-change"),
    # a past window's extreme came before the reading told as it is
    ("VITALS: Maximum temperature in the last 24 hours was 38.9, and her temperature is 37.1 now.",
     "temperature in the last 24 hours was 38.9", "temperature is 37.1", "window-extreme"),
    ("EXAM: Temperature 36.8.  Pulse 72.  Tmax 38.4.", "Tmax 38.4", "Temperature 36.8", "window-extreme"),
    # a value told as where it went, after a value of it told before: the change went from that one
    ("LABS: Her potassium was 3.2.  After repletion her potassium was back up to 4.1.", "potassium was 3.2",
     "potassium was back up to 4.1", "change-end"),
    ("ASSESSMENT: Sodium 131.  Sodium has dropped to 124 this morning.", "Sodium 131", "Sodium has dropped to 124",
     "change-end"),
])
def test_values_told_in_time_order(text, earlier, later, rule):
    a, b = span(text, earlier), span(text, later)
    found = find_relation(text, b, a)
    assert found is not None and found.rule == rule
    assert (found.earlier, found.later) == (a, b) and check_order(text, found)
    assert not check_order(text, replace(found, earlier=b, later=a))


@pytest.mark.parametrize("text", [
    "HOSPITAL COURSE: She had a rash.  She was continued on vancomycin.",
    "HOSPITAL COURSE: Vancomycin was started.  She continued to have a rash.",
])
def test_a_continuing_state_is_not_told_in_order(text):
    assert told_order(text, span(text, "ancomycin"), span(text, "rash")) is None


@pytest.mark.parametrize(("text", "past", "present", "cue"), [
    # a past history before what the assessment names
    ("PAST MEDICAL HISTORY: ,Breast cancer treated with radiation.,ASSESSMENT: ,Radiation pneumonitis.",
     "radiation", "Radiation pneumonitis", "PAST MEDICAL HISTORY"),
    # a year the sentence states puts its event in the patient's past
    (("HISTORY OF PRESENT ILLNESS: ,She had a colonoscopy in 2011 that showed diverticula.,"
     "IMPRESSION: ,Diverticulitis."), "colonoscopy", "Diverticulitis", "in 2011"),
    ("HISTORY: ,He was treated for endocarditis three years ago.,DIAGNOSES: ,Aortic regurgitation.",
     "endocarditis", "Aortic regurgitation", "three years ago"),
    ("HISTORY OF PRESENT ILLNESS: ,Her knee was replaced back in 04/2015.,ASSESSMENT: ,Prosthetic joint infection.",
     "knee was replaced", "Prosthetic joint infection", "back in 04/2015"),
])
def test_the_past_before_what_an_assessment_names(text, past, present, cue):
    placed = phase_order(text, span(text, present), span(text, past))
    assert placed is not None and placed.rule == PAST_BEFORE_PRESENT
    assert (placed.earlier, placed.later) == (span(text, past), span(text, present))
    assert text[placed.cue_start:placed.cue_end] == cue
    found = find_relation(text, span(text, past), span(text, present))
    assert found is not None and check_order(text, found)


@pytest.mark.parametrize(("text", "first", "second"), [
    # an assessment is not ordered against the presentation or the stay: only after the past
    ("HISTORY OF PRESENT ILLNESS: ,She presented with fever.,ASSESSMENT: ,Pneumonia.", "fever", "Pneumonia"),
    ("HOSPITAL COURSE: ,She received ceftriaxone.,ASSESSMENT: ,Drug rash.", "ceftriaxone", "Drug rash"),
    # a date the stay's own narrative states may be the stay's: it does not make a past
    ("HOSPITAL COURSE: ,A CT was done in 2016 showing a mass.,ASSESSMENT: ,Lung mass.", "CT", "Lung mass"),
    # the present-state mention told in the past, with a time of its own, is not the present
    ("PAST MEDICAL HISTORY: ,Asthma.,ASSESSMENT: ,She had pneumonia last year.", "Asthma", "pneumonia"),
    # a day's date in the history may be the current episode's: no past from it
    ("HISTORY OF PRESENT ILLNESS: ,On 03/02/2015 a biopsy was done.,ASSESSMENT: ,Pneumothorax.",
     "biopsy", "Pneumothorax"),
])
def test_no_past_before_present(text, first, second):
    assert phase_order(text, span(text, first), span(text, second)) is None


@pytest.mark.parametrize("title", ["CURRENT HISTORY", "INTERIM HISTORY", "HISTORY OF ILLNESS"])
def test_other_titles_of_the_present_illness(title):
    text = (f"{title}: ,An 80-year-old man with two days of confusion.  He was found to have a UTI.,"
            "HOSPITAL COURSE: ,He was given intravenous antibiotics.")
    assert note_layout(text).sections[0].role == "history_of_present_illness"
    told = told_order(text, span(text, "UTI"), span(text, "confusion"))
    assert told is None  # the first sentence tells no past event
    placed = find_relation(text, span(text, "antibiotics"), span(text, "confusion"))
    assert placed is not None and placed.rule == EARLIER_SECTION and placed.earlier == span(text, "confusion")


def test_a_time_inside_a_sentence_on_the_way_dates_only_its_clause():
    inside = ("HOSPITAL COURSE: ,She was given ceftriaxone.  Her last culture on 3/2/2019 grew E. coli.  "
              "She developed a rash.")
    placed = told_order(inside, span(inside, "rash"), span(inside, "ceftriaxone"))
    assert placed is not None and placed.earlier == span(inside, "ceftriaxone")
    opening = ("HOSPITAL COURSE: ,She was given ceftriaxone.  In 2019 she had a culture that grew E. coli.  "
               "She developed a rash.")
    assert told_order(opening, span(opening, "rash"), span(opening, "ceftriaxone")) is None


@pytest.mark.parametrize("later", [
    "Her rash has much improved.",
    "The rash resolved.",
    "She had persistent rash.",
    "There was improvement in her rash.",
])
def test_a_state_that_went_on_is_not_told_after(later):
    text = f"HOSPITAL COURSE: ,She was given ceftriaxone.  {later}"
    assert told_order(text, span(text, "ceftriaxone"), span(text, "rash")) is None
    began = "HOSPITAL COURSE: ,She was given ceftriaxone.  She developed a rash that improved."
    assert told_order(began, span(began, "ceftriaxone"), span(began, "rash")) is not None


@pytest.mark.parametrize("later", [
    "She was on vancomycin.",
    "On hospital day 4 she was on vancomycin.",
    "She remained on IV vancomycin.",
])
def test_being_on_a_drug_is_a_state_not_a_start(later):
    text = f"HOSPITAL COURSE: ,On hospital day 2 she developed a rash.  {later}"
    rash, drug = span(text, "rash"), span(text, "vancomycin")
    assert told_order(text, rash, drug) is None and counted_order(text, rash, drug) is None
    started = f"HOSPITAL COURSE: ,On hospital day 2 she developed a rash.  {later.replace('was on', 'was started on')}"
    if "started" in started:
        assert find_relation(started, span(started, "rash"), span(started, "vancomycin")) is not None


def test_an_admission_diagnosis_is_the_presentation():
    text = ("ADMISSION DIAGNOSIS: ,Community-acquired pneumonia.,HOSPITAL COURSE: ,She was given ceftriaxone.,"
            "DISCHARGE DIAGNOSIS: ,Pneumonia, resolved.")
    assert [s.role for s in note_layout(text).sections] == ["admission_diagnosis", "hospital_course", "assessment"]
    placed = phase_order(text, span(text, "ceftriaxone"), span(text, "Community-acquired pneumonia"))
    assert placed is not None and placed.rule == EARLIER_SECTION
    assert placed.earlier == span(text, "Community-acquired pneumonia")
    # a discharge diagnosis is not ordered against the stay
    assert phase_order(text, span(text, "ceftriaxone"), span(text, "Pneumonia, resolved")) is None


def test_the_past_before_a_diagnosis_list_is_weighed_by_the_contract():
    text = "PAST SURGICAL HISTORY: ,Appendectomy.,PREOPERATIVE DIAGNOSIS: ,Nonhealing amputation stump."
    placed = phase_order(text, span(text, "amputation"), span(text, "Appendectomy"))
    assert placed is not None and placed.rule == PAST_BEFORE_PRESENT


@pytest.mark.parametrize(("text", "words", "expected"), [
    ("Possible pneumonia, continue vancomycin.", "pneumonia", True),
    ("Suspected acute pertussis.", "pertussis", True),
    ("Rule out deep venous thrombosis.", "deep venous thrombosis", True),
    # a hedge in another clause does not reach it: ConText's scope may, this does not
    ("It was thought to be possible, and she was started on vancomycin.", "vancomycin", False),
    ("Pneumonia, continue vancomycin.", "Pneumonia", False),
])
def test_a_hedge_right_before_a_mention(text, words, expected):
    from medeventgraph.nlp.relations import hedged

    assert hedged(text, span(text, words)) is expected


@pytest.mark.parametrize(("text", "earlier", "later"), [
    ("HOSPITAL COURSE: A catheterization was done and two stents were placed.", "catheterization", "stents"),
    ("HOSPITAL COURSE: She was given ceftriaxone, and the next blood culture was negative.",
     "ceftriaxone", "blood culture"),
    ("HISTORY OF PRESENT ILLNESS: He received a dose of furosemide; his urine output was measured.",
     "furosemide", "urine output"),
    ("HISTORY OF PRESENT ILLNESS: She was given vancomycin and developed a rash.", "vancomycin", "rash"),
    # a past participle sharing the first clause's subject, going on to its object or place
    ("HOSPITAL COURSE: She was admitted with pneumonia, intubated for hypoxia, and started on cefepime.",
     "pneumonia", "cefepime"),
    ("HOSPITAL COURSE: He was treated with heparin and discharged home on warfarin.", "heparin", "warfarin"),
    ("HISTORY OF PRESENT ILLNESS: She was seen, diagnosed with strep throat and treated with amoxicillin.",
     "strep throat", "amoxicillin"),
    # a clause whose subject is a noun, not a pronoun: a test that showed, a value that fell
    ("HOSPITAL COURSE: Chest x-ray demonstrated a pneumothorax, and a chest tube was placed.",
     "pneumothorax", "chest tube"),
    ("HOSPITAL COURSE: Her sodium dropped to 121 and she was given hypertonic saline.",
     "sodium", "hypertonic saline"),
    # irregular past verbs of their own
    ("HISTORY OF PRESENT ILLNESS: She tripped, fell and struck her head on the table.", "fell", "struck"),
    # a participle that takes what was given as its bare object ("transfused packed red cells")
    ("HOSPITAL COURSE: He developed a lower GI bleed, was moved to the unit and transfused packed red cells.",
     "lower GI bleed", "packed red cells"),
    ("HOSPITAL COURSE: She became hypotensive and given 2 liters of normal saline.", "hypotensive", "normal saline"),
])
def test_clauses_of_one_sentence_are_told_in_order(text, earlier, later):
    a, b = span(text, earlier), span(text, later)
    placed = told_order(text, b, a)
    assert placed is not None and placed.rule == TOLD_IN_ORDER
    assert (placed.earlier, placed.later) == (a, b)
    found = find_relation(text, b, a)
    assert found is not None and check_order(text, found)
    assert not check_order(text, replace(found, earlier=b, later=a))


@pytest.mark.parametrize(("text", "earlier", "later"), [
    ("HISTORY OF PRESENT ILLNESS: She presents with a rash.  She is started on prednisone.", "rash", "prednisone"),
    ("HISTORY OF PRESENT ILLNESS: He comes in with chest pain.  He is given aspirin and nitroglycerin.",
     "chest pain", "aspirin"),
    ("HISTORY OF PRESENT ILLNESS: He is admitted with pneumonia.  He develops a rash.", "pneumonia", "rash"),
    ("HOSPITAL COURSE: She was treated with heparin.  She is then transferred to the ward.", "heparin", "ward"),
    ("HISTORY OF PRESENT ILLNESS: She presents with a cough and is found to have pneumonia.", "cough", "pneumonia"),
])
def test_a_story_told_in_the_historical_present_is_told_in_order(text, earlier, later):
    a, b = span(text, earlier), span(text, later)
    placed = told_order(text, b, a)
    assert placed is not None and placed.rule == TOLD_IN_ORDER and (placed.earlier, placed.later) == (a, b)
    found = find_relation(text, b, a)
    assert found is not None and check_order(text, found)


@pytest.mark.parametrize(("text", "first", "second"), [
    # what one presents with may have begun before what was told first
    ("HISTORY OF PRESENT ILLNESS: She had a CT scan last week.  She presents with abdominal pain.", "CT scan",
     "abdominal pain"),
    # a past told after the present may go back
    ("HISTORY OF PRESENT ILLNESS: She presents with a rash.  She was given amoxicillin by her doctor.", "rash",
     "amoxicillin"),
    # a habit, a condition, a state
    ("HISTORY OF PRESENT ILLNESS: He presents for a visit.  He undergoes dialysis three times a week.", "visit",
     "dialysis"),
    ("DISCHARGE INSTRUCTIONS: He presents for a visit.  He is seen again if he develops a fever.", "visit", "fever"),
    ("HISTORY OF PRESENT ILLNESS: She comes in with fever.  She is on amoxicillin.", "fever", "amoxicillin"),
    ("HISTORY OF PRESENT ILLNESS: She has diabetes.  She is started on metformin.", "diabetes", "metformin"),
])
def test_no_order_told_in_the_present(text, first, second):
    assert told_order(text, span(text, first), span(text, second)) is None


@pytest.mark.parametrize("text", [
    # one clause: the later mention has no verb of its own
    "HOSPITAL COURSE: She was given ceftriaxone and aspirin.",
    "HOSPITAL COURSE: The ceftriaxone and aspirin were given.",
    # a participle that tells a state going on, or a finding, not an act
    "HOSPITAL COURSE: She was started on ceftriaxone, continued on aspirin.",
    "HOSPITAL COURSE: She had ceftriaxone allergy, elevated aspirin levels and a rash.",
    # a participle clause after a first clause with no past verb of its own
    "HOSPITAL COURSE: Her ceftriaxone allergy, treated with aspirin.",
    # a subordinate clause is not told in its place
    "HOSPITAL COURSE: Before aspirin was given, ceftriaxone was started.",
    "HOSPITAL COURSE: She was given ceftriaxone, which had replaced aspirin.",
    # the later clause steps back in time, or is in the present
    "HOSPITAL COURSE: She was given ceftriaxone, and she had been on aspirin.",
    "HOSPITAL COURSE: She was given ceftriaxone, and she takes aspirin.",
    # a noun and a participle that is no verb of its own: a plan, a finding, a comparison
    "HOSPITAL COURSE: She was given ceftriaxone, and aspirin will be started in the morning.",
    "HOSPITAL COURSE: She was given ceftriaxone, and aspirin levels elevated at 30.",
    "HOSPITAL COURSE: She was given ceftriaxone, and aspirin is planned for the morning.",
    # not a narrative section
    "PLAN: The ceftriaxone was discussed and aspirin was declined.",
    # "given" opening a reason, not an act given
    "HOSPITAL COURSE: She was offered ceftriaxone, and given her aspirin allergy history, it was held.",
])
def test_clauses_that_tell_no_order(text):
    assert told_order(text, span(text, "ceftriaxone"), span(text, "aspirin")) is None


@pytest.mark.parametrize(("text", "sentences"), [
    # written for this test: a time of day or a dose ends its sentence before a clause's opening word
    ("HISTORY OF PRESENT ILLNESS: Chest pain began at 2 a.m. He was taken for catheterization at 6 a.m.",
     ["Chest pain began at 2 a.m.", "He was taken for catheterization at 6 a.m."]),
    ("HOSPITAL COURSE: She was given metoprolol 25 mg p.o. b.i.d. The rate slowed.",
     ["She was given metoprolol 25 mg p.o. b.i.d.", "The rate slowed."]),
    # a title, or a word that opens no clause, goes on
    ("PLAN: Lasix 40 mg p.o. Dr. Smith will follow.", ["Lasix 40 mg p.o. Dr. Smith will follow."]),
    ("HISTORY OF PRESENT ILLNESS: She took it at 8 a.m. Monday.", ["She took it at 8 a.m. Monday."]),
])
def test_a_time_of_day_or_a_dose_ends_its_sentence_before_a_new_clause(text, sentences):
    layout = note_layout(text)
    assert [text[s.start:s.end] for s in layout.sentences] == sentences


def test_clock_times_told_in_order_across_a_time_of_day():
    text = "HISTORY OF PRESENT ILLNESS: Chest pain began at 2 a.m. He was taken for catheterization at 6 a.m."
    placed = told_order(text, span(text, "catheterization"), span(text, "Chest pain"))
    assert placed is not None and placed.rule == TOLD_IN_ORDER and placed.earlier == span(text, "Chest pain")
