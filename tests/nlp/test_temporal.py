"""Time from text on sentences of real MTSamples reports (../shared/data/mtsamples, CC0):
each form resolves against the anchor the record states, and without it stays unresolved."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from medeventgraph.model.occurrence import EventTime, Granularity, NoteDocument, NoteText
from medeventgraph.nlp.temporal import Anchors, header_anchors
from medeventgraph.nlp.timeline import note_anchors

NOTE = datetime(2024, 1, 15, 12, tzinfo=UTC)
ADMITTED = datetime(2024, 1, 10, 8, tzinfo=UTC)
ANCHORS = Anchors(note=NOTE, admission=ADMITTED, discharge=NOTE)


@pytest.fixture(scope="module")
def finder(note_pipeline):
    return note_pipeline.time_finder


@pytest.mark.parametrize(
    ("sentence", "expression", "day", "granularity", "anchor", "part"),
    [
        ("who presented to ABCD General Hospital on 08/20/2003 with complaints of", "on 08/20/2003",
         "2003-08-20", Granularity.DAY, "stated", None),
        ("On 7/22/93 she developed fever with associated proptosis", "On 7/22/93", "1993-07-22", Granularity.DAY,
         "stated", None),
        ("Echocardiogram on 2015-02-03 showed normal function.", "on 2015-02-03", "2015-02-03", Granularity.DAY,
         "stated", None),
        ("last hemodialysis was on June 22, 2007.", "on June 22, 2007", "2007-06-22", Granularity.DAY, "stated", None),
        ("creatinine of 1.8 in May 2006 corresponding with", "in May 2006", "2006-05-01", Granularity.MONTH,
         "stated", None),
        ("On the fourth hospital day, she was noted to have some rashes", "On the fourth hospital day",
         "2024-01-13", Granularity.DAY, "admission", None),
        ("Renal function worsened on hospital day 3.", "on hospital day 3", "2024-01-12", Granularity.DAY,
         "admission", None),
        ("She developed vomiting 3 days prior to admission, but did not have diarrhea.", "3 days prior to admission",
         "2024-01-07", Granularity.DAY, "admission", None),
        ("Last night, she had a prolonged episode", "Last night", "2024-01-14", Granularity.DAY, "note", "night"),
        ("The patient was a little somnolent early this morning", "early this morning", "2024-01-15",
         Granularity.DAY, "note", "early morning"),
        ("His mother just died two days ago.", "two days ago", "2024-01-13", Granularity.DAY, "note", None),
        ("She quit smoking about 6 weeks ago.", "about 6 weeks ago", "2023-12-01", Granularity.WEEK, "note", None),
        ("last seen in rheumatology clinic approximately 4 months ago for bilateral hand discomfort",
         "approximately 4 months ago", "2023-09-01", Granularity.MONTH, "note", None),
        # written for this test: the previous calendar unit, nights, the day around the admission
        ("Her knee gave way last month.", "last month", "2023-12-01", Granularity.MONTH, "note", None),
        ("He had a stroke last year.", "last year", "2023-01-01", Granularity.YEAR, "note", None),
        ("She vomited two nights ago.", "two nights ago", "2024-01-13", Granularity.DAY, "note", "night"),
        ("He fell the night before admission.", "the night before admission", "2024-01-09", Granularity.DAY,
         "admission", "night"),
        ("Chills began the day prior to presentation.", "the day prior to presentation", "2024-01-09",
         Granularity.DAY, "admission", None),
        ("On the morning of admission she was short of breath.", "On the morning of admission", "2024-01-10",
         Granularity.DAY, "admission", "morning"),
        # written for this test: arrival and presentation are the admission's day; the discharge's own
        ("Upon arrival to the emergency room she was hypotensive.", "Upon arrival", "2024-01-10", Granularity.DAY,
         "admission", None),
        ("At the time of presentation her potassium was 6.1.", "At the time of presentation", "2024-01-10",
         Granularity.DAY, "admission", None),
        ("At discharge her creatinine was 1.1.", "At discharge", "2024-01-15", Granularity.DAY, "discharge", None),
        ("On the morning of discharge she was afebrile.", "On the morning of discharge", "2024-01-15",
         Granularity.DAY, "discharge", "morning"),
        # written for this test: days counted from the admission, or back from the discharge
        ("Two days after admission she developed a rash.", "Two days after admission", "2024-01-12",
         Granularity.DAY, "admission", None),
        ("The day after admission she was extubated.", "The day after admission", "2024-01-11",
         Granularity.DAY, "admission", None),
        ("Five days into her hospitalization she spiked a fever.", "Five days into her hospitalization",
         "2024-01-15", Granularity.DAY, "admission", None),
        ("On day 3 of her hospitalization she was extubated.", "On day 3 of her hospitalization", "2024-01-12",
         Granularity.DAY, "admission", None),
        ("Twelve hours prior to arrival she took a dose.", "Twelve hours prior to arrival", "2024-01-09",
         Granularity.DAY, "admission", None),
        ("Two days before discharge her Foley was removed.", "Two days before discharge", "2024-01-13",
         Granularity.DAY, "discharge", None),
        ("The evening before discharge she walked the halls.", "The evening before discharge", "2024-01-14",
         Granularity.DAY, "discharge", "evening"),
    ],
)
def test_each_form_resolves_against_its_anchor(finder, sentence, expression, day, granularity, anchor, part):
    (t,) = [t for t in finder.find(sentence, ANCHORS) if t.text == expression]
    assert sentence[t.start:t.end] == expression
    assert t.time.start.date().isoformat() == day
    assert t.time.granularity is granularity and t.anchor == anchor and t.part == part


def test_last_week_is_a_week_before_and_the_last_week_a_duration(finder):
    (t,) = finder.find("Her cough began last week.", ANCHORS)
    lo, hi = t.time.start_window()
    assert t.text == "last week" and t.approximate and lo < datetime(2024, 1, 8, tzinfo=UTC) < hi
    (d,) = finder.find("Her cough worsened over the last week.", ANCHORS)
    assert d.rule_id == "duration-to-now"


@pytest.mark.parametrize(("told", "yearless", "day"), [
    ("On 12/22/08, a CT-guided biopsy was performed.", "On 12/28, she had a fever.", "2008-12-28"),
    ("She was admitted on 12/30/2008.", "On 1/2, she was extubated.", "2009-01-02"),  # the year turned
    ("On March 3, 2011, she underwent a lumpectomy.", "On March 20 she started tamoxifen.", "2011-03-20"),
])
def test_a_date_without_its_year_takes_the_year_the_passage_told(finder, told, yearless, day):
    (first,) = finder.find(told, ANCHORS)
    (t,) = finder.find(yearless, ANCHORS, first)
    assert t.time.start.date().isoformat() == day and t.time.granularity is Granularity.DAY
    # without a stated date before it: told in the past, the latest such day before the note
    (t,) = finder.find("On 12/28, she had a fever.", ANCHORS)
    assert t.time.start.date().isoformat() == "2023-12-28"
    (t,) = finder.find("She received vancomycin at an outside hospital on March 1.", ANCHORS)
    assert t.time.start.date().isoformat() == "2023-03-01"
    # told as a plan, or not in the past, it is no event's date: dropped
    assert finder.find("She is scheduled for a colonoscopy on 12/28.", ANCHORS) == ()
    assert finder.find("She was scheduled to return on 12/28.", ANCHORS) == ()
    assert finder.find("Her colonoscopy is on 12/28.", ANCHORS) == ()


@pytest.mark.parametrize(("sentence", "expression", "days_ago"), [
    ("She vomited a couple of days ago.", "a couple of days ago", 2),
    ("The rash began a few days ago.", "a few days ago", 3),
    ("He fell several days ago.", "several days ago", 4),
    ("She passed out at home the other day.", "the other day", 3),
])
def test_a_vague_count_is_a_range_not_a_day(finder, sentence, expression, days_ago):
    (t,) = finder.find(sentence, ANCHORS)
    lo, hi = t.time.start_window()
    assert t.text == expression and t.approximate and t.time.granularity is not Granularity.DAY
    assert lo < NOTE - timedelta(days=days_ago) < hi


def test_approximate_weeks_hold_the_stated_range(finder):
    (t,) = finder.find("She quit smoking about 6 weeks ago.", ANCHORS)
    lo, hi = t.time.start_window()
    assert t.approximate and lo < datetime(2023, 12, 4, tzinfo=UTC) < hi  # six weeks before 2024-01-15


@pytest.mark.parametrize(("sentence", "expression", "before"), [
    ("She has had a dry cough for the past 3 days.", "for the past 3 days", 3),
    ("Over the past week, he has noticed his ankles swelling.", "Over the past week", 7),
    ("A 71-year-old with a 5- to 6-day history of left lower quadrant pain.", "5- to 6-day history of", 5),
    # written for this test: a count of units of a complaint, after a verb of having or telling or "with"
    ("She has had 3 days of fever.", "3 days of", 3),
    ("A 70-year-old man who presented with 6 hours of chest pressure.", "6 hours of", 0),
    ("She reports 2 weeks of nausea.", "2 weeks of", 14),
    ("A 90-year-old woman with several days of lethargy.", "several days of", 4),
    # "for" a count, in a clause whose present perfect says it lasts to now
    ("He has had knee pain for ten years.", "for ten years", 3650),
    ("She has been on metformin for about 5 years.", "for about 5 years", 1826),
    ("He has been having headaches for 2 weeks.", "for 2 weeks", 14),
    # the complaint, then how long it has lasted
    ("She presents with abdominal pain of 3 days' duration.", "of 3 days' duration", 3),
    ("Headache of two weeks duration.", "of two weeks duration", 14),
])
def test_how_long_a_complaint_has_lasted_times_its_onset(finder, sentence, expression, before):
    """A stated duration up to the note ('for the past 3 days') places the onset that long before
    the note, as a range: the words say about when it began, not the day."""
    (t,) = [t for t in finder.find(sentence, ANCHORS) if t.text == expression]
    lo, hi = t.time.start_window()
    assert t.approximate and lo <= NOTE - timedelta(days=before) <= hi


def test_a_range_of_days_ends_before_the_notes_day(finder):
    """'for the past 2 days' began 1 to 3 days before the note: its window is that range, not a
    week from its first day, which would reach past the note's day and order nothing against it."""
    (t,) = finder.find("She has been vomiting for the past 2 days.", ANCHORS)
    lo, hi = t.time.start_window()
    assert t.time.granularity is Granularity.WEEK and hi - lo == timedelta(days=2)
    assert hi <= datetime(2024, 1, 15, tzinfo=UTC)


def test_two_counts_in_one_list_each_time_their_own_complaint(finder):
    sentence = "She has had 3 days of fever and 1 day of cough."
    fever, cough = finder.find(sentence, ANCHORS)
    assert (fever.text, cough.text) == ("3 days of", "1 day of")
    assert fever.time.start_window()[1] <= cough.time.start_window()[0]


@pytest.mark.parametrize("sentence", [
    "We will see him again after 2 weeks of treatment.",  # a course, not an onset
    "She was treated with 7 days of ciprofloxacin.",
    "Plan was to complete additional 10 days of antibiotics.",
    "Mom smoked up to the last 5 months of the pregnancy.",
])
def test_a_course_given_is_no_onset(finder, sentence):
    assert [t for t in finder.find(sentence, ANCHORS) if t.rule_id == "units-of-complaint"] == []


def test_a_list_under_one_perfect_times_each_of_its_complaints(finder):
    dyspnea, edema = finder.find("He has had dyspnea for 2 months and edema for 2 weeks.", ANCHORS)
    assert (dyspnea.rule_id, edema.rule_id) == ("perfect-for-units", "perfect-for-units")
    assert dyspnea.time.start_window()[1] <= edema.time.start_window()[0]


@pytest.mark.parametrize("sentence", [
    "He has had diabetes and was treated with insulin for 2 years.",  # another clause's verb: a course
    "The patient has been taken off Coumadin for five days.",  # stopped, not begun
    "She was treated with antibiotics for 7 days.",  # no perfect: a past course
    "He has had a cough for the past 3 days.",  # 'the past' is duration-to-now's
])
def test_for_a_count_without_its_perfect_is_no_onset(finder, sentence):
    assert [t for t in finder.find(sentence, ANCHORS) if t.rule_id == "perfect-for-units"] == []


def test_a_duration_of_a_past_course_is_no_time(finder):
    assert finder.find("He took steroids for about 3 days and stopped.", ANCHORS) == ()


def test_no_anchor_no_time(finder):
    # No operation date is stated: "postoperative day #1" cannot be placed.
    assert finder.find("The patient's Jackson-Pratt drain was removed on postoperative day #1", ANCHORS) == ()
    # No admission known: "prior to admission" stays unresolved; no note date: "two days ago" too.
    assert finder.find("seen in the office 1 day prior to admission.", Anchors(note=NOTE)) == ()
    assert finder.find("His mother just died two days ago.", Anchors(admission=ADMITTED)) == ()


def test_postoperative_day_with_a_stated_operation_date(finder):
    anchors = Anchors(note=NOTE, surgery=datetime(2024, 1, 11, tzinfo=UTC))
    (t,) = finder.find("The patient was started on Prograf by postoperative day #2.", anchors)
    assert t.time.start.date().isoformat() == "2024-01-13" and t.anchor == "surgery"


@pytest.mark.parametrize(("sentence", "expression", "day"), [
    # written for this test: days of the stay and after the operation told in words or ordinals,
    # and counts from the operation (2024-01-11) as from the admission
    ("On hospital day four she had a rash.", "On hospital day four", "2024-01-13"),
    ("On the third day of admission she had a rash.", "On the third day of admission", "2024-01-12"),
    ("The drain was removed on postop day one.", "on postop day one", "2024-01-12"),
    ("On the second postoperative day she was ambulating.", "On the second postoperative day", "2024-01-13"),
    # dictation says the count's word "number"
    ("On postoperative day number two she was ambulating.", "On postoperative day number two", "2024-01-13"),
    ("Renal function worsened on hospital day number 3.", "on hospital day number 3", "2024-01-12"),
    ("On the day of surgery she had a rash.", "On the day of surgery", "2024-01-11"),
    ("The day after the operation she had a rash.", "The day after the operation", "2024-01-12"),
    ("Two days after surgery she had a rash.", "Two days after surgery", "2024-01-13"),
    ("Five days prior to the procedure she stopped Coumadin.", "Five days prior to the procedure", "2024-01-06"),
])
def test_days_of_the_stay_and_from_the_operation_in_words(finder, sentence, expression, day):
    anchors = Anchors(note=NOTE, admission=ADMITTED, surgery=datetime(2024, 1, 11, tzinfo=UTC))
    (t,) = finder.find(sentence, anchors)
    assert (t.text, t.time.start.date().isoformat()) == (expression, day)
    if "surgery" in sentence or "operation" in sentence or "procedure" in sentence:
        assert finder.find(sentence, Anchors(note=NOTE, admission=ADMITTED)) == ()  # no operation date stated


@pytest.mark.parametrize(("sentence", "expression", "day"), [
    # written for this test: how long ago an operation was, told in the present, counts from the note
    ("She is 10 days status post hernia repair.", "10 days status post", "2024-01-05"),
    ("He is now 2 weeks out from his knee replacement.", "2 weeks out from", "2023-12-29"),  # as "2 weeks ago"
    ("He is 3 days post-op from an appendectomy.", "3 days post-op from", "2024-01-12"),
    ("He is ten days status post an appendectomy.", "ten days status post", "2024-01-05"),
])
def test_how_long_ago_an_operation_was_told_in_the_present(finder, sentence, expression, day):
    (t,) = finder.find(sentence, ANCHORS)
    assert (t.text, t.time.start.date().isoformat(), t.anchor) == (expression, day, "note")


@pytest.mark.parametrize(("sentence", "expression", "year"), [
    # written for this test: a part of a stated year is somewhere in that calendar year
    ("He was diagnosed in early 2019.", "in early 2019", 2019),
    ("She had a stroke in mid-2017.", "in mid-2017", 2017),
    ("She had surgery in the spring of 2018.", "in the spring of 2018", 2018),
    ("At the end of 2015 she had a stroke.", "the end of 2015", 2015),
])
def test_a_part_of_a_year_is_that_year(finder, sentence, expression, year):
    (t,) = finder.find(sentence, ANCHORS)
    assert (t.text, t.time.start.year, t.time.granularity) == (expression, year, Granularity.YEAR)


def test_a_winter_spans_two_years_and_is_not_read(finder):
    assert finder.find("In the winter of 2019 she fell.", ANCHORS) == ()


def test_how_long_after_an_operation_in_a_past_story_is_not_read_from_the_note(finder):
    assert finder.find("Three days post transfusion her hemoglobin was 9.", ANCHORS) == ()


def test_next_morning_and_that_time_refer_to_the_previous_time(finder):
    (t,) = [t for t in finder.find("Vancomycin was started on 4/20/01 and the next morning she developed a rash.",
                                   ANCHORS) if t.anchor == "previous"]
    assert t.text == "the next morning" and t.time.start.date().isoformat() == "2001-04-21" and t.part == "morning"
    sentence = "after she noticed mild abdominal cramping in February 2007.  At that time, she was pregnant"
    that = [t for t in finder.find(sentence, ANCHORS) if t.text == "At that time"]
    assert that and that[0].time.granularity is Granularity.MONTH
    # Nothing stated before it: "at that time" stays unresolved.
    assert finder.find("At that time, orthostatics were negative", ANCHORS) == ()


@pytest.mark.parametrize(("told", "relative", "expression", "lo", "hi", "granularity"), [
    # written for this test: counts from the time the passage told last, either way
    ("She was admitted on 3/2/2019 with pneumonia.", "Three days later she developed a rash.",
     "Three days later", "2019-03-05", "2019-03-06", Granularity.DAY),
    ("She was admitted on 3/2/2019 with pneumonia.", "Two days after that, she was intubated.",
     "Two days after that", "2019-03-04", "2019-03-05", Granularity.DAY),
    ("She was admitted on 3/2/2019 with pneumonia.", "A few days later, her creatinine rose.",
     "A few days later", "2019-03-04", "2019-03-07", Granularity.WEEK),
    ("She had a stroke in May 2015.", "Two years later she had a second one.",
     "Two years later", "2017-01-01", "2018-01-01", Granularity.YEAR),  # a count of years is told as one
    ("She had a stroke in May 2015.", "Six months earlier she had stopped warfarin.",
     "Six months earlier", "2014-11-01", "2014-12-01", Granularity.MONTH),
    ("She had a stroke on 5/10/2015.", "Two weeks prior she had stopped warfarin.",
     "Two weeks prior", "2015-04-23", "2015-04-30", Granularity.WEEK),
    ("She had a stroke on 5/10/2015.", "The following week she began rehabilitation.",
     "The following week", "2015-05-14", "2015-05-21", Granularity.WEEK),
    ("She had a stroke on 5/10/2015.", "The previous evening she had a headache.",
     "The previous evening", "2015-05-09", "2015-05-10", Granularity.DAY),
    ("She had a stroke on 5/10/2015.", "She had felt dizzy the day before.",
     "the day before", "2015-05-09", "2015-05-10", Granularity.DAY),
])
def test_a_count_from_the_previous_time(finder, told, relative, expression, lo, hi, granularity):
    (first,) = finder.find(told, ANCHORS)
    (t,) = finder.find(relative, ANCHORS, first)
    start, end = t.time.start_window()
    assert t.text == expression and t.anchor == "previous" and t.time.granularity is granularity
    # the window holds every day the count allows
    assert start <= datetime.fromisoformat(lo).replace(tzinfo=UTC) < datetime.fromisoformat(hi).replace(tzinfo=UTC) <= end


def test_a_count_from_the_previous_time_needs_one_and_is_never_a_plan(finder):
    assert finder.find("Three days later she developed a rash.", ANCHORS) == ()
    (first,) = finder.find("She was seen on 1/14/2024.", ANCHORS)
    assert finder.find("Three days later she will return.", ANCHORS, first) == ()  # after the note's day
    # "prior to" names its own anchor: not a count back from the previous time
    (t,) = finder.find("Three days prior to admission she fell.", ANCHORS, first)
    assert t.anchor == "admission"
    # a count back from a year is wider than a year: no time
    (year,) = finder.find("She had a stroke in 2015.", ANCHORS)
    assert finder.find("Several months earlier she had stopped warfarin.", ANCHORS, year) == ()


@pytest.mark.parametrize(("sentence", "expression", "inside", "anchor"), [
    # written for this test: vague counts back from the admission, the visit, the discharge
    ("Several days before admission she had a cough.", "Several days before admission", "2024-01-06", "admission"),
    ("The week before admission she had a cough.", "The week before admission", "2024-01-03", "admission"),
    ("A few hours before arrival she took aspirin.", "A few hours before arrival", "2024-01-10", "admission"),
    ("One month prior to this visit she had a fall.", "One month prior to this visit", "2023-12-15", "note"),
    ("Two weeks before her visit she had a fall.", "Two weeks before her visit", "2024-01-01", "note"),
    ("Her fever broke 18 hours prior to discharge.", "18 hours prior to discharge", "2024-01-14", "discharge"),
])
def test_vague_counts_before_an_anchor(finder, sentence, expression, inside, anchor):
    (t,) = finder.find(sentence, ANCHORS)
    start, end = t.time.start_window()
    day = datetime.fromisoformat(inside).replace(tzinfo=UTC)
    assert t.text == expression and t.anchor == anchor and start <= day < end


@pytest.mark.parametrize(("sentence", "plan"), [
    # written for this test: times ahead of the note, stated as such
    ("We will repeat the CT in six months.", "in six months"),
    ("See her back in 1 to 2 weeks.", "in 1 to 2 weeks"),
    ("Dialysis is planned for tomorrow.", "tomorrow"),
    ("She will return for Rituxan next week.", "next week"),
])
def test_a_time_ahead_of_the_note_is_a_plan_never_a_date(finder, sentence, plan):
    (t,) = finder.plans(sentence, ANCHORS)
    assert t.text == plan and t.planned and t.time.start_window()[1] > NOTE
    assert finder.find(sentence, ANCHORS) == ()


@pytest.mark.parametrize("sentence", [
    "Her rash resolved in 2 days.",  # a course told in the past
    "She has lost 10 pounds in 3 months.",  # a perfect: up to now
    "Weight loss of 10 pounds in 3 months.",  # nothing in the sentence plans
    "It became a hemianopsia within a month of onset.",  # counted from another event
    "We will see her back the next week.",  # "the next week": counted from the passage's time
])
def test_what_is_not_a_plan(finder, sentence):
    assert finder.plans(sentence, ANCHORS) == ()


@pytest.mark.parametrize(("sentence", "expression", "year"), [
    # written for this test: an age, counted from the birth the note's stated age gives
    ("She was diagnosed with bursitis at age 23.", "at age 23", 1991),
    ("Her first colonoscopy was at the age of 35.", "at the age of 35", 2003),
    ("She has had seizures since age 5.", "since age 5", 1973),
])
def test_an_age_is_a_year_counted_from_the_stated_age(finder, sentence, expression, year):
    text = "HISTORY OF PRESENT ILLNESS: This is a 56-year-old woman. " + sentence
    note = NoteDocument("DocumentReference", "d", "Patient/p", None,
                        EventTime(start=datetime(2024, 1, 10, 9, tzinfo=UTC), granularity=Granularity.SECOND),
                        (NoteText(0, "text/plain", text),))
    anchors = note_anchors(note, text, None, finder)
    assert anchors.birth is not None and anchors.birth.year == 1968
    (t,) = finder.find(sentence, anchors)
    assert t.text == expression and t.anchor == "birth" and t.approximate
    assert t.time.granularity is Granularity.YEAR and t.time.start.year == year
    # no stated age, no birth: the age stays unresolved; nor is an age in months a year
    assert finder.find(sentence, ANCHORS) == ()
    assert finder.find("He walked at the age of 14 months.", anchors) == ()


def test_values_and_plans_are_not_times(finder):
    assert finder.find("Potassium 6.1, creatinine 2.3, SBP in the 70s.", ANCHORS) == ()
    assert finder.find("Follow up in clinic tomorrow.", ANCHORS) == ()  # after the note: a plan


def test_header_dates_are_anchors(finder):
    text = "ADMISSION DATE: 04/02/2007,DISCHARGE DATE: 04/06/2007,HOSPITAL COURSE: ..."
    stated = header_anchors(text, finder)
    assert stated["admission"] == datetime(2007, 4, 2, tzinfo=UTC)
    assert stated["discharge"] == datetime(2007, 4, 6, tzinfo=UTC)


def test_a_mention_takes_the_time_of_its_own_clause(finder):
    from medeventgraph.nlp.dates import nearest_time

    sentence = "She was placed on prednisone on 8/11/93 and Cytoxan was started on 8/16/93."
    times = list(finder.find(sentence, ANCHORS))
    for word, day in (("prednisone", "1993-08-11"), ("Cytoxan", "1993-08-16")):
        start = sentence.index(word)
        best = nearest_time(times, start, start + len(word), sentence)
        assert best is not None and best.time.start.date().isoformat() == day


def test_a_time_never_crosses_a_sequence_word(finder):
    """mts-3898 (real): the time after "and then" is the Rocephin's; Avelox and Augmentin came before it."""
    from medeventgraph.nlp.dates import nearest_time

    sentence = ("She was first started on Avelox, but had a reaction, switched to Augmentin, which caused loose "
                "stools, and then three days prior to admission was given daily 1 g Rocephin and started on "
                "azithromycin.")
    times = list(finder.find(sentence, ANCHORS))
    assert times
    for word, timed in (("Avelox", False), ("Augmentin", False), ("Rocephin", True)):
        start = sentence.index(word)
        best = nearest_time(times, start, start + len(word), sentence)
        assert (best is not None) is timed, word


@pytest.mark.parametrize("sentence", [
    # written for this test: "followed" hands the later time to what follows it, with or without "by"
    "She was treated in March 2015 with several courses of intravenous methotrexate followed in 2017 with rituximab.",
    "Staged palliation began on 03/14/2001 with a left-sided modified central shunt followed on 08/02/2002 by a Fontan.",
])
def test_the_time_after_followed_is_the_next_events(finder, sentence: str) -> None:
    from medeventgraph.nlp.dates import nearest_time

    times = list(finder.find(sentence, ANCHORS))
    first = min(times, key=lambda t: t.start)
    for word in ("methotrexate", "shunt"):
        if word in sentence:
            start = sentence.index(word)
            assert nearest_time(times, start, start + len(word), sentence) == first


@pytest.mark.parametrize(("sentence", "event", "timed"), [
    # written for this test: the time dates the death or the intubation, not the cause named after it
    ("She died approximately 4 days into the admission from sepsis.", "sepsis", False),
    ("He was intubated two days after admission due to hypoxia.", "hypoxia", False),
    ("He was intubated two days after admission due to hypoxia.", "intubated", True),
    ("Her creatinine rose from 1.1 to 2.3 two days after admission.", "creatinine", True),
    # the time after "after / following / from" and an act dates that act, not what it led to
    ("She developed a rash after starting amoxicillin on 1/3/2024.", "rash", False),
    ("She developed a rash after starting amoxicillin on 1/3/2024.", "amoxicillin", True),
    ("The wound is bleeding from scratching it two days ago.", "bleeding", False),
    ("Status post knee replacement secondary to arthritis performed on 1/3/2024.", "knee replacement", True),
    # a clause that opens on a new subject after the mention tells its own time
    ("He underwent a colonoscopy (which was normal), He received ciprofloxacin for 3 days prior to admission.",
     "colonoscopy", False),
    ("He underwent a colonoscopy (which was normal), He received ciprofloxacin for 3 days prior to admission.",
     "ciprofloxacin", True),
    ("She had mild nausea; however, she continued working until she fainted 2 days ago.", "nausea", False),
    ("He developed chest pain and he was admitted two days ago.", "chest pain", False),
    ("He developed chest pain two days ago and he was admitted.", "chest pain", True),
    ("The biopsy, she reported, was done 2 days ago.", "biopsy", True),
    # a word that sets its clause in the present keeps a past time out of it, unless it goes on to one
    ("She underwent a cholecystectomy 10 days ago and now has a wound infection.", "wound infection", False),
    ("She underwent a cholecystectomy 10 days ago and now has a wound infection.", "cholecystectomy", True),
    ("Fevers began 3 days ago and she currently has a cough.", "cough", False),
    ("She had a cholecystectomy, now 3 weeks ago.", "cholecystectomy", True),
    # nor into the presentation a joined clause tells
    ("She is status post appendectomy 2 weeks ago and presents with wound drainage.", "wound drainage", False),
    ("She is status post appendectomy 2 weeks ago and presents with wound drainage.", "appendectomy", True),
    ("He had a colonoscopy 3 days ago and returned with rectal bleeding.", "rectal bleeding", False),
    ("He had a colonoscopy 3 days ago and has had rectal bleeding since.", "rectal bleeding", True),
    # "from" that is the time's own words names no cause
    ("She is 2 weeks out from her hernia repair.", "hernia repair", True),
])
def test_a_time_does_not_date_the_cause_it_names(finder, sentence, event, timed):
    from medeventgraph.nlp.dates import nearest_time

    times = list(finder.find(sentence, ANCHORS))
    assert times
    start = sentence.index(event)
    assert (nearest_time(times, start, start + len(event), sentence) is not None) is timed


@pytest.mark.parametrize("note", [datetime(1, 1, 1, 5, tzinfo=UTC), datetime(9999, 12, 31, 23, tzinfo=UTC)])
def test_an_anchor_at_the_ends_of_the_calendar_gives_no_time_not_an_error(finder, note):
    # "yesterday" before year 1, "the next morning" after 9999: nothing the calendar can hold
    for sentence in ("Acute kidney injury yesterday.", "She was extubated the next morning.", "AKI 3 months ago."):
        assert finder.find(sentence, Anchors(note=note, admission=note)) == ()


@pytest.mark.parametrize(("sentence", "expression", "month"), [
    ("She had a colonoscopy in 03/09 that showed polyps.", "in 03/09", "2009-03"),
    ("Seizure-free since 11/98 on levetiracetam.", "since 11/98", "1998-11"),
    ("He was on dialysis from 7/23 until his transplant.", "from 7/23", "2023-07"),  # not after the note
])
def test_a_month_and_two_digit_year_after_a_preposition_is_that_month(finder, sentence, expression, month):
    (t,) = finder._find(sentence, ANCHORS)
    assert (sentence[t.start:t.end], t.time.start.strftime("%Y-%m"), t.time.granularity) == (
        expression, month, Granularity.MONTH)
    assert t.anchor == "stated"


def test_a_month_and_year_after_the_note_or_no_month_is_no_time(finder):
    assert finder._find("Colonoscopy in 05/24 is planned.", ANCHORS) == ()  # May 2024 is after the note
    assert finder._find("Sodium was 13/15 in the sample.", ANCHORS) == ()


@pytest.mark.parametrize(("sentence", "expression", "day", "granularity"), [
    # a count before a date the sentence writes is counted back from that date, not the date itself
    ("She was well until 2 months prior to her 4/15/97 admission when she noticed a cough.",
     "2 months prior to her 4/15/97", "1997-02-01", Granularity.MONTH),
    ("Three days before 10/02/2016 he fell.", "Three days before 10/02/2016", "2016-09-29", Granularity.DAY),
])
def test_a_count_before_a_stated_date(finder, sentence, expression, day, granularity):
    (t,) = [t for t in finder.find(sentence, ANCHORS, None) if t.text == expression]
    assert t.time.start == datetime.fromisoformat(day).replace(tzinfo=UTC) and t.time.granularity is granularity


def test_a_sentence_read_under_other_anchors_is_scanned_once_and_read_as_when_first_scanned(finder):
    """The clinical rules' matches are kept per sentence text (they do not depend on the anchors):
    a sentence read again under other anchors or another previous time gives what a first read
    gives."""
    sentence = "She developed vomiting 3 days prior to admission and was seen the next morning."
    other = Anchors(note=NOTE + timedelta(days=30), admission=ADMITTED + timedelta(days=30))
    finder._rule_matches.cache_clear()
    finder.find_all.cache_clear()
    first = [finder.find(sentence, anchors) for anchors in (ANCHORS, other)]
    assert finder._rule_matches.cache_info().misses == 1 and finder._rule_matches.cache_info().hits == 1
    assert first[0] != first[1]
    finder._rule_matches.cache_clear()
    finder.find_all.cache_clear()
    assert finder.find(sentence, other) == first[1]
    (previous,) = finder.find("Seen on 01/02/2024.", ANCHORS)
    assert finder.find(sentence, ANCHORS, previous) == finder._resolve(sentence, ANCHORS, previous)


def test_header_dates_are_read_once_per_text_and_handed_out_as_fresh_dicts(finder):
    text = "ADMISSION DATE: 04/02/2007\nDISCHARGE DATE: 04/09/2007\nHPI: seen."
    finder._headers.cache_clear()
    first = header_anchors(text, finder)
    first["admission"] = None  # the caller's own dict: the next read does not see it
    again = header_anchors(text, finder)
    assert again == {"admission": datetime(2007, 4, 2, tzinfo=UTC), "discharge": datetime(2007, 4, 9, tzinfo=UTC)}
    assert finder._headers.cache_info().misses == 1
