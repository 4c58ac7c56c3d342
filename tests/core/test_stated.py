"""Order stated in words, end to end on a real MTSamples report (tests/data/mtsamples, CC0):
the cue establishes "before", its reverse refutes, and every cited span slices back to the words."""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path

import pytest
from medeventgraph.api import load
from medeventgraph.core.answer import verify_query
from medeventgraph.core.index.patient_index import build_index
from medeventgraph.core.query.model import VerificationQuery
from medeventgraph.model.settings import Settings
from medeventgraph.nlp.relations import find_order

DATA = Path(__file__).resolve().parents[1] / "data" / "mtsamples"


@pytest.fixture(scope="module")
def seizure_index(note_pipeline):
    settings = Settings(notes=True)
    record = load(DATA / "mts-1430.json", settings=settings).for_patient("mts-1430")
    return build_index(record, settings, notes=note_pipeline), settings


def _note_text() -> str:
    bundle = json.loads((DATA / "mts-1430.json").read_text())
    doc = next(e["resource"] for e in bundle["entry"] if e["resource"]["resourceType"] == "DocumentReference")
    return base64.b64decode(doc["content"][0]["attachment"]["data"]).decode()


def _query(rel: str) -> VerificationQuery:
    return VerificationQuery.model_validate({
        "id": "q", "scope": "encounter",
        "events": [{"id": "drug", "text": "tramadol", "kind": "medication"},
                   {"id": "fit", "text": "seizure", "kind": "condition"}],
        "relations": [{"from": "fit", "to": "drug", "type": rel}]})


def test_stated_order_supports_and_cites_the_cue(seizure_index):
    index, settings = seizure_index
    v = verify_query(index, _query("after"), settings)
    assert v.verdict.value == "supported", v.relations[0].explanation
    assert "stated order: 'subsequently'" in v.relations[0].explanation and v.relations[0].stated
    text = _note_text()
    (row,) = [e for e in v.evidence if e.kind == "relation"]
    assert row.polarity == "supports" and text[row.source.start:row.source.end] == "subsequently"
    for e in v.evidence:
        if e.origin == "note" and e.kind != "relation":
            assert text[e.source.start:e.source.end].lower() in {"tramadol", "seizure"}


def test_stated_reverse_order_refutes(seizure_index):
    index, settings = seizure_index
    v = verify_query(index, _query("before"), settings)
    assert v.verdict.value == "refuted" and v.failure.value == "opposite_order"
    (row,) = [e for e in v.evidence if e.kind == "relation"]
    assert row.polarity == "counters" and _note_text()[row.source.start:row.source.end] == "subsequently"
    assert any(c.endswith(f"#s{row.source.start}-{row.source.end}") for c in v.citations)


def _with_text(text: str) -> dict:
    bundle = json.loads((DATA / "mts-1430.json").read_text())
    for e in bundle["entry"]:
        if e["resource"]["resourceType"] == "DocumentReference":
            e["resource"]["content"][0]["attachment"]["data"] = base64.b64encode(text.encode()).decode()
    return bundle


@pytest.mark.parametrize(
    "text",
    [
        "Plan: may start heparin if no bleeding, and subsequently monitor for bleeding.",
        "No heparin was given.  Subsequently, she had bleeding from the line site.",
    ],
)
def test_negated_or_hypothetical_mentions_never_ground_a_stated_order(note_pipeline, text):
    settings = Settings(notes=True)
    record = load(_with_text(text), settings=settings).for_patient("mts-1430")
    index = build_index(record, settings, notes=note_pipeline)
    q = VerificationQuery.model_validate({
        "id": "q", "scope": "encounter",
        "events": [{"id": "a", "text": "heparin", "kind": "medication"},
                   {"id": "b", "text": "bleeding", "kind": "condition"}],
        "relations": [{"from": "a", "to": "b", "type": "before"}]})
    v = verify_query(index, q, settings)
    assert v.verdict.value != "supported"
    assert not any(e.kind == "relation" and e.polarity == "supports" for e in v.evidence)


@pytest.mark.parametrize(("indication", "earlier", "supported"), [
    # an act named as what the procedure is for is done or planned after those words: its section
    # places it before nothing the procedure tells
    ("Venogram for left ventricular lead placement.", "left ventricular lead placement", False),
    # a test named with its result in the indication was done before: its section places it
    ("Positive nuclear stress test.", "nuclear stress test", True),
])
def test_an_act_named_as_a_purpose_is_no_earlier_end(note_pipeline, indication, earlier, supported):
    settings = Settings(notes=True)
    text = f"INDICATION: ,{indication},PROCEDURE: ,A defibrillation lead was placed in the right ventricle."
    record = load(_with_text(text), settings=settings).for_patient("mts-1430")
    index = build_index(record, settings, notes=note_pipeline)
    q = VerificationQuery.model_validate({
        "id": "q", "scope": "patient",
        "events": [{"id": "a", "text": earlier, "kind": "procedure"},
                   {"id": "b", "text": "defibrillation lead placement", "kind": "procedure"}],
        "relations": [{"from": "a", "to": "b", "type": "before"}]})
    v = verify_query(index, q, settings)
    assert (v.verdict.value == "supported") is supported, v.relations[0].explanation
    if supported:
        assert "told in the indication, an earlier part of the story" in v.relations[0].explanation


def _ask(note_pipeline, text: str, a: tuple[str, str], b: tuple[str, str], rel: str, within: str | None = None):
    settings = Settings(notes=True)
    record = load(_with_text(text), settings=settings).for_patient("mts-1430")
    index = build_index(record, settings, notes=note_pipeline)
    relation = {"from": "a", "to": "b", "type": rel, **({"within": within} if within else {})}
    q = VerificationQuery.model_validate({
        "id": "q", "scope": "patient", "relations": [relation],
        "events": [{"id": "a", "text": a[0], "kind": a[1]}, {"id": "b", "text": b[0], "kind": b[1]}]})
    return verify_query(index, q, settings)


_OPERATION = ("PROCEDURES PERFORMED: ,Bilateral capsulectomies.,MEDICATIONS: ,She stopped her warfarin five days prior "
              "to the procedures.  Cefazolin was given during the operation.,")


@pytest.mark.parametrize(("a", "rel", "within", "verdict", "cue"), [
    # "the procedures" names the operation the note lists: warfarin stopped five days before it
    (("warfarin", "medication"), "before", None, "supported", "five days prior to the procedures"),
    (("warfarin", "medication"), "before", "P5D", "supported", "five days prior to the procedures"),
    (("warfarin", "medication"), "after", None, "refuted", "five days prior to the procedures"),
    (("Cefazolin", "medication"), "overlaps", None, "supported", "during the operation"),
])
def test_the_procedure_names_the_notes_operation(note_pipeline, a, rel, within, verdict, cue):
    v = _ask(note_pipeline, _OPERATION, a, ("capsulectomy", "procedure"), rel, within)
    assert v.verdict.value == verdict, v.relations[0].explanation
    (row,) = [e for e in v.evidence if e.kind == "relation"]
    assert _OPERATION[row.source.start:row.source.end] == cue


def test_the_procedure_names_no_condition_of_the_operation_list(note_pipeline):
    text = ("PROCEDURE: ,Excision of a left breast mass.,MEDICATIONS: ,She stopped her warfarin five days prior "
            "to the procedure.,")
    v = _ask(note_pipeline, text, ("warfarin", "medication"), ("breast mass", "condition"), "before")
    assert v.verdict.value != "supported"
    assert not any(e.kind == "relation" for e in v.evidence)


_SWITCHED = ("She was first started on Avelox, but had a reaction, switched to Augmentin, which caused loose stools, "
             "and then three days prior to admission was given daily 1 g Rocephin and started on azithromycin.")


@pytest.mark.parametrize(
    ("sentence", "earlier", "later", "cue"),
    [
        ("After starting vancomycin she developed a rash.", "vancomycin", "rash", "After"),
        # an operative note's "after adequate anesthesia" words the act before the cue's object
        ("After adequate general anesthesia, the abdomen was prepped.", "general anesthesia", "abdomen", "After"),
        ("After successful induction of anesthesia, an incision was made.", "anesthesia", "incision", "After"),
        ("After failing amiodarone, he underwent cardioversion.", "amiodarone", "cardioversion", "After"),
        # a sentence that opens with its cause tells the cause first
        ("Because of persistent fever, a lumbar puncture was performed.", "fever", "lumbar puncture", "Because of"),
        ("In view of the hyperkalemia, an electrocardiogram was obtained.", "hyperkalemia", "electrocardiogram",
         "In view of"),
        ("She was given Paxil and Tramadol and subsequently developed an unfortunate side effect of seizure.",
         "Tramadol", "seizure", "subsequently"),
        ("Cr bumped to 2.3 two days after vanc was begun.", "vanc", "Cr", "two days after"),
        ("placement of a vena caval filter followed by mechanical and pharmacologic thrombolysis.",
         "vena caval filter", "thrombolysis", "followed by"),
        ("She had a rash prior to starting Bactrim.", "rash", "Bactrim", "prior to"),
        ("Since starting lisinopril, she has had a cough.", "lisinopril", "cough", "Since"),
        ("Diarrhea, which began before the clindamycin, persisted.", "Diarrhea", "clindamycin", "which began before"),
        ("She was started on vancomycin.  Subsequently, she developed acute kidney injury.", "vancomycin",
         "acute kidney injury", "Subsequently"),
        ("Her fever persisted on cefepime.  She eventually underwent a drainage of the abscess.", "cefepime",
         "drainage", "eventually"),
        ("He was treated with heparin and ultimately required a thrombectomy.", "heparin", "thrombectomy",
         "ultimately"),
        ("the patient received one gram of Rocephin intravenously shortly after the intubation.", "intubation",
         "Rocephin", "shortly after"),
        (("The patient also noted with poorly controlled atrial fibrillation.  The patient subsequently "
          "received diltiazem"), "atrial fibrillation", "diltiazem", "subsequently"),
        # mts-3898 (real): a switch leaves the drug named before it, across the clause between;
        # "and then" opens the second drug's clause, however long the clause after the first.
        (_SWITCHED, "Avelox", "Augmentin", "switched to"),
        (_SWITCHED, "Augmentin", "Rocephin", "and then"),
        ("He was on lisinopril, which was changed to losartan.", "lisinopril", "losartan", "was changed to"),
        # a stated cause is stated first
        ("He was started on amiodarone and this caused bradycardia.", "amiodarone", "bradycardia", "this caused"),
        ("Her hyperkalemia was likely secondary to spironolactone.", "spironolactone", "hyperkalemia",
         "secondary to"),
        ("He was admitted with cellulitis, developed a rash and was moved.", "cellulitis", "rash", "developed"),
        # a problem comes before what treats it, what it is treated by or responds to, and its complication
        ("Her pneumonia was treated with levofloxacin.", "pneumonia", "levofloxacin", "treated with"),
        ("Hypokalemia was repleted with potassium chloride.", "Hypokalemia", "potassium chloride", "repleted with"),
        ("The hypotension responded promptly to fluid boluses.", "hypotension", "fluid boluses",
         "responded promptly to"),
        ("His pain resolved with morphine.", "pain", "morphine", "resolved with"),
        ("Her chest pain was relieved by sublingual nitroglycerin.", "chest pain", "nitroglycerin", "relieved by"),
        ("The headache was only partially alleviated by acetaminophen.", "headache", "acetaminophen",
         "alleviated by"),
        ("She had a generalized seizure, which was aborted with lorazepam.", "seizure", "lorazepam", "aborted with"),
        # a problem that got better after an act was there before it, not after it
        ("Her chest pain resolved after sublingual nitroglycerin.", "chest pain", "nitroglycerin",
         "resolved after"),
        ("The wheezing improved quickly following albuterol.", "wheezing", "albuterol", "improved quickly following"),
        ("Her pain was controlled with morphine.", "pain", "morphine", "controlled with"),
        ("In response to the hypotension, norepinephrine was started.", "hypotension", "norepinephrine",
         "In response to"),
        ("Norepinephrine was started in response to hypotension.", "hypotension", "Norepinephrine",
         "in response to"),
        ("The colectomy was complicated by an ileus.", "colectomy", "ileus", "complicated by"),
        ("Chest pain prompted a cardiac catheterization.", "Chest pain", "cardiac catheterization", "prompted"),
        # a test done to look into a problem came after it
        ("A CT scan was performed to evaluate the abdominal pain.", "abdominal pain", "CT scan", "to evaluate"),
        ("An MRI was obtained for further evaluation of the headache.", "headache", "MRI",
         "for further evaluation of"),
        ("The catheterization was prompted by chest pain.", "chest pain", "catheterization", "prompted by"),
        # what came before is said to precede; a consequence follows
        ("The syncope was preceded by chest pain.", "chest pain", "syncope", "was preceded by"),
        ("Chest pain preceded the syncope.", "Chest pain", "syncope", "preceded"),
        ("She had a fall with subsequent hip fracture.", "fall", "hip fracture", "with subsequent"),
        ("Her pneumonia evolved into ARDS.", "pneumonia", "ARDS", "evolved into"),
        # the object of a cue may follow a course or trial of it, or its own clause's subject and verb
        ("The cellulitis was treated with a 10-day course of Keflex.", "cellulitis", "Keflex", "treated with"),
        ("The cough has been present since she started lisinopril.", "lisinopril", "cough", "since"),
        ("A rash appeared after he was given vancomycin.", "vancomycin", "rash", "after"),
        # what a sentence opens with "before" came after what the sentence goes on to tell
        ("Prior to the catheterization she was given aspirin.", "aspirin", "catheterization", "Prior to"),
        ("Before starting amiodarone, a TSH was checked.", "TSH", "amiodarone", "Before"),
        # "once", "within hours of", "upon completion of": what follows came after
        ("Once the cultures were drawn, ceftriaxone was given.", "cultures", "ceftriaxone", "Once"),
        ("Within hours of the transfusion she became febrile.", "transfusion", "febrile", "Within hours of"),
        ("She became febrile within 2 hours of the transfusion.", "transfusion", "febrile", "within 2 hours of"),
        ("Upon completion of the dialysis, her potassium was 4.1.", "dialysis", "potassium", "Upon"),
        # a drug replaced by another came first; so did a problem a treatment relieved or required
        ("She was transitioned from heparin to warfarin.", "heparin", "warfarin", "to"),
        ("Metformin was replaced by insulin.", "Metformin", "insulin", "was replaced by"),
        ("Ondansetron was given with improvement of her nausea.", "nausea", "Ondansetron", "with improvement of"),
        ("Respiratory failure required intubation.", "Respiratory failure", "intubation", "required"),
        # a cause's consequence, also in a phrase the comma opens
        ("A fall, resulting in a hip fracture, brought her in.", "fall", "hip fracture", "resulting in"),
        ("Contrast exposure leading to acute kidney injury.", "Contrast exposure", "acute kidney injury",
         "leading to"),
        ("Amiodarone causing hypothyroidism was suspected.", "Amiodarone", "hypothyroidism", "causing"),
        # a prefix joined to the mention by its hyphen
        ("Post-transfusion hemoglobin was 9.8.", "transfusion", "hemoglobin", "Post-"),
        ("Her pre-dialysis potassium was 6.1.", "potassium", "dialysis", "pre-"),
        # a day counted in a course: the course began first
        ("She developed a rash on day 3 of amoxicillin.", "amoxicillin", "rash", "on day 3 of"),
        ("She became neutropenic by the fifth day of chemotherapy.", "chemotherapy", "neutropenic",
         "by the fifth day of"),
        # a modifier of time between the cue and the mention it governs
        ("He underwent CABG, complicated by postoperative atrial fibrillation.", "CABG", "atrial fibrillation",
         "complicated by"),
        # the mention's own modifiers, how much was given, and how the event began
        ("After a witnessed generalized seizure, she was loaded with levetiracetam.", "seizure", "levetiracetam",
         "After"),
        ("Her potassium dropped to 2.9 after several doses of furosemide.", "furosemide", "potassium", "after"),
        ("She was given tPA within 2 hours of the onset of her stroke symptoms.", "stroke", "tPA",
         "within 2 hours of"),
        ("Hyperglycemia developed after high-dose steroids.", "steroids", "Hyperglycemia", "after"),
        ("A rash appeared after 2 units of packed red blood cells.", "packed red blood cells", "rash", "after"),
        # a problem that treatment did not relieve was there before it
        ("She took ibuprofen without relief of her headache.", "headache", "ibuprofen", "without relief of"),
        # a count before a mention that names its own unit
        ("After 2 units of blood, her hemoglobin was 9.2.", "units of blood", "hemoglobin", "After"),
        ("Seizures recurred after the final cycle of chemotherapy.", "chemotherapy", "Seizures", "after"),
        # a cue governs every item of the list it opens
        ("After vancomycin and gentamicin she developed acute kidney injury.", "gentamicin", "acute kidney injury",
         "After"),
        ("She developed a rash after cefazolin, vancomycin and piperacillin.", "piperacillin", "rash", "after"),
        ("The colectomy was complicated by an ileus, pneumonia and a wound infection.", "colectomy", "wound infection",
         "complicated by"),
        # a consequence told as a participle of the cause's clause
        ("He tripped on the stairs, sustaining a wrist fracture.", "tripped", "wrist fracture", "sustaining"),
        ("She fell at home, suffering a hip fracture.", "fell", "hip fracture", "suffering"),
        # "ever since" is "since"
        ("She has had nausea ever since the chemotherapy.", "chemotherapy", "nausea", "ever since"),
        ("Ever since the surgery he has had diarrhea.", "surgery", "diarrhea", "Ever since"),
        # what developed during a course began after it started
        ("During the transfusion she developed a fever.", "transfusion", "fever", "developed"),
        ("While on heparin, he developed thrombocytopenia.", "heparin", "thrombocytopenia", "developed"),
        ("While she was receiving insulin she became hypoglycemic.", "insulin", "hypoglycemic", "became"),
        ("In the course of the infusion he went into atrial fibrillation.", "infusion", "atrial fibrillation",
         "went into"),
        # a cause joined to its effect by a hyphen, or named as what the effect resulted from
        ("She developed vancomycin-induced nephrotoxicity.", "vancomycin", "nephrotoxicity", "-induced"),
        ("He has a catheter-associated bloodstream infection.", "catheter", "bloodstream infection", "-associated"),
        ("She developed a rash as a result of the amoxicillin.", "amoxicillin", "rash", "as a result of"),
        ("The hyponatremia was felt to be related to her hydrochlorothiazide.", "hydrochlorothiazide",
         "hyponatremia", "related to"),
        ("She developed hives as a reaction to cefazolin.", "cefazolin", "hives", "as a reaction to"),
        ("He had a prolonged ileus as a complication of the colectomy.", "colectomy", "ileus",
         "as a complication of"),
        # "as a result" alone tells what follows as the consequence
        ("She took ibuprofen daily, and as a result developed a gastric ulcer.", "ibuprofen", "gastric ulcer",
         "and as a result"),
        # "post" alone is "after"; a count "into" a course is a day of it
        ("Her hemoglobin post transfusion was 9.1.", "transfusion", "hemoglobin", "post"),
        ("Rigors began two hours into the amphotericin infusion.", "amphotericin", "Rigors", "two hours into"),
        ("She developed hives on her third day of amoxicillin.", "amoxicillin", "hives", "on her third day of"),
        ("Her antibiotics were changed to ceftriaxone once cultures returned.", "cultures", "ceftriaxone", "once"),
        # a list of treatments: its last item joined by a bare "and"
        ("Her pneumonia was treated with ceftriaxone and azithromycin.", "pneumonia", "azithromycin", "treated with"),
        # "before that", "prior to this" as words of their own tell what follows them as earlier
        ("She was admitted in May with pneumonia and before that had a hip replacement.", "hip replacement",
         "pneumonia", "before that had"),
        ("He was hospitalized for heart failure.  Prior to this, he underwent a mitral valve repair.",
         "mitral valve repair", "heart failure", "Prior to this,"),
        ("He had a stroke in the spring.  Previously, he had a myocardial infarction.", "myocardial infarction",
         "stroke", "Previously,"),
    ],
)
def test_each_cue_reads_its_order(sentence, earlier, later, cue):
    a, b = sentence.index(earlier), sentence.index(later)
    found = find_order(sentence, (a, a + len(earlier)), (b, b + len(later)))
    assert found is not None and sentence[found.cue_start:found.cue_end] == cue
    assert sentence[slice(*found.earlier)] == earlier and sentence[slice(*found.later)] == later


@pytest.mark.parametrize(
    ("sentence", "x", "y"),
    [
        ("She was started on vancomycin.  She developed acute kidney injury.", "vancomycin", "acute kidney injury"),
        # an item joined without a comma right before the second mention may open a clause of its own
        ("Vancomycin was given after surgery and AKI developed.", "Vancomycin", "AKI"),
        # real (mts-3856): "shortly after the intubation" dates the Rocephin, not the sepsis concern
        (("Because of concern regarding pneumonia or sepsis, the patient received one gram of Rocephin "
          "intravenously shortly after the intubation."), "sepsis", "intubation"),
        # a cue after a coordinated clause of its own belongs to that clause, not to the first mention
        ("She has been on hemodialysis since 2001 and is also status post a liver biopsy.", "hemodialysis",
         "liver biopsy"),
        # a "then" that does not open the second mention's clause relates nothing over a long gap
        (("She was given vancomycin for the line infection, and then her fever settled over the following "
          "week, after a long and difficult course in the unit, with some AKI"), "vancomycin", "AKI"),
        # a treatment cue governs its object only, not a mention later in the sentence
        ("The rash, treated with hydrocortisone, resolved before the fever.", "rash", "fever"),
        # a drug stopped because of a problem was started before the stop, not after the problem
        ("Because of the angioedema, lisinopril was stopped.", "angioedema", "lisinopril"),
        ("Due to bleeding, heparin was held.", "bleeding", "heparin"),
        ("Her warfarin was held for the colonoscopy.", "warfarin", "colonoscopy"),
        # a comma that opens another clause, not the cue's own phrase
        ("She had a rash, and the patient was given vancomycin after the fever.", "rash", "fever"),
        # a participle after "was" or "she" is a verb of another clause, not a modifier of the mention
        ("She was treated with ceftriaxone and azithromycin.", "ceftriaxone", "azithromycin"),
        # a list's item is no phrase of a word of its own ("concern regarding")
        ("Because of concern regarding pneumonia or sepsis, she received Rocephin after the intubation.", "sepsis",
         "intubation"),
        # "suffering from" names a cause, not a consequence
        ("He came in suffering from pneumonia and dehydration.", "pneumonia", "dehydration"),
        # a cause's object ends where another clause opens
        ("Her pain is due to a fall and she was given morphine.", "pain", "morphine"),
        ("The rash was attributed to soap and she was given prednisone.", "rash", "prednisone"),
        ("Her pain is related to movement and she was given morphine.", "pain", "morphine"),
        # a hyphen after another word is that word's cause, not the mention's
        ("She was given vancomycin for a drug-induced rash.", "vancomycin", "rash"),
        # a bare "and" after a cue that treats nothing may join the first mention's item; after a
        # treatment, the item with a verb of its own is a clause of its own
        ("She had a fever after the transfusion and a rash.", "fever", "rash"),
        # "once" of a frequency is no "once X happened"
        ("She took aspirin once a day and ibuprofen twice a day.", "aspirin", "ibuprofen"),
        ("Her pneumonia was treated with ceftriaxone and azithromycin was added later.", "pneumonia", "azithromycin"),
    ],
)
def test_narrative_order_is_not_time_order(sentence, x, y):
    a, b = sentence.index(x), sentence.index(y)
    assert find_order(sentence, (a, a + len(x)), (b, b + len(y))) is None


@pytest.mark.parametrize(("sentence", "first", "second"), [
    ("She had chest pain prior to this fall.", "chest pain", "fall"),
    ("He had a rash several weeks before that transfusion.", "rash", "transfusion"),
])
def test_before_this_noun_never_tells_the_noun_first(sentence, first, second):
    """"prior to this fall" dates by its noun: what comes after it is not told as earlier."""
    a, b = sentence.index(first), sentence.index(second)
    found = find_order(sentence, (a, a + len(first)), (b, b + len(second)))
    assert found is None or sentence[slice(*found.earlier)] == first


@pytest.mark.parametrize("sentence", [
    "She was started on vancomycin for MRSA bacteremia.",  # the organism or setting of an infection
    "She was started on vancomycin for gram positive bacteremia.",
    "She was started on vancomycin for hospital acquired bacteremia.",
])
def test_an_indication_named_with_its_organism_or_setting(sentence):
    a, b = sentence.index("vancomycin"), sentence.index("bacteremia")
    found = find_order(sentence, (a, a + 10), (b, b + 10))
    assert found is not None and found.earlier == (b, b + 10) and found.rule == "for-indication"


def test_a_treatment_cue_orders_its_object_by_the_indication_alone():
    sentence = "She was treated with heparin for a DVT."  # the DVT first: it is what heparin is for
    a, b = sentence.index("heparin"), sentence.index("DVT")
    found = find_order(sentence, (a, a + 7), (b, b + 3))
    assert found is not None and found.earlier == (b, b + 3) and (found.cue, found.rule) == ("for", "for-indication")


# -- stated overlap and stated windows (issue 11 item 4) -------------------------------------------


def _overlap_query(first: str, first_kind: str, second: str, second_kind: str, rel: str = "overlaps",
                   within: str | None = None) -> VerificationQuery:
    return VerificationQuery.model_validate({
        "id": "q", "scope": "encounter",
        "events": [{"id": "a", "text": first, "kind": first_kind}, {"id": "b", "text": second, "kind": second_kind}],
        "relations": [{"from": "a", "to": "b", "type": rel} | ({"within": within} if within else {})]})


def _index_of(note_pipeline, bundle_or_path, patient: str):
    settings = Settings(notes=True)
    return build_index(load(bundle_or_path, settings=settings).for_patient(patient), settings,
                       notes=note_pipeline), settings


def test_stated_overlap_supports_overlaps_and_cites_the_cue(note_pipeline):
    """mts-1559 (real): "She went on to have numerous deep venous thrombosis while on Coumadin." """
    index, settings = _index_of(note_pipeline, DATA / "mts-1559.json", "mts-1559")
    v = verify_query(index, _overlap_query("deep venous thrombosis", "condition", "coumadin", "medication"), settings)
    assert v.verdict.value == "supported", v.relations[0].explanation
    assert "stated overlap: 'while on'" in v.relations[0].explanation
    text = next(d for d in index.documents.values()).texts[0].text
    (row,) = [e for e in v.evidence if e.kind == "relation" and e.polarity == "supports"]
    assert text[row.source.start:row.source.end] == "while on" and "overlaps" in row.concept
    assert any(c.endswith(f"#s{row.source.start}-{row.source.end}") for c in v.citations)
    supporting = [e for e in v.evidence if e.kind != "relation" and e.polarity == "supports"]
    assert sorted(text[e.source.start:e.source.end] for e in supporting) == ["Coumadin", "deep venous thrombosis"]


@pytest.mark.parametrize("text", [
    "GI bleed, continue Coumadin and follow the counts.",
    "GI bleed, slowly resolving.  Continue Coumadin at the same dose.",
    "While on Coumadin she had a GI bleed.",
    "She had a GI bleed while on Coumadin.",
    "She was on Coumadin when she developed a GI bleed.",
    "She had a GI bleed despite Coumadin.",
    "She had a GI bleed on Coumadin.",
    "She had a GI bleed in the setting of Coumadin use.",
    "She had a GI bleed in the context of Coumadin use.",
    "Her GI bleed was managed on Coumadin.",
    "Her GI bleed was associated with Coumadin use.",
    "She had a GI bleed at the same time as the Coumadin.",
    "She was kept on Coumadin throughout the GI bleed.",
    "Coumadin was stopped because of a GI bleed.",
    "Coumadin was stopped on admission because of a GI bleed.",  # not 'because of' alone: the bleed first
    "GI bleed, on Coumadin.",  # a problem list's apposition
    "She had a GI bleed requiring Coumadin reversal.",
    # 'while' right before the mention, and a sentence opening with the time of the other
    "She had a GI bleed while Coumadin was being given.",
    "At the time of the GI bleed she was taking Coumadin.",
    "Concurrently with the Coumadin she had a GI bleed.",
    # "at the same time" between two clauses; "was on X at the time" a clause opens
    "She had a GI bleed, and at the same time she was on Coumadin.",
    "She was on Coumadin at the time she had the GI bleed.",
])
def test_each_overlap_cue_supports_overlaps_only(note_pipeline, text):
    _supports_overlap_only(note_pipeline, text, ("gi bleed", "condition"), ("coumadin", "medication"))


def test_while_in_a_place_overlaps_the_stay_there(note_pipeline):
    _supports_overlap_only(note_pipeline, "She received heparin while in the ICU.", ("heparin", "medication"),
                           ("ICU", "procedure"))


def _supports_overlap_only(note_pipeline, text: str, first: tuple[str, str], second: tuple[str, str]) -> str:
    """The explanation of a supported `overlaps`; an overlap says nothing about order, so neither
    order is established, neither refuted."""
    index, settings = _index_of(note_pipeline, _with_text(text), "mts-1430")
    v = verify_query(index, _overlap_query(*first, *second), settings)
    assert v.verdict.value == "supported", v.relations[0].explanation
    for rel in ("before", "after"):
        assert verify_query(index, _overlap_query(*first, *second, rel), settings).verdict.value == "insufficient"
    return v.relations[0].explanation


@pytest.mark.parametrize("text", [
    # written for this test: a treatment given for the patient's own condition
    "She continued to receive Coumadin for her atrial fibrillation.",
    "Coumadin was given for her atrial fibrillation.",
    "She has atrial fibrillation, for which she takes Coumadin.",
    "Atrial fibrillation began in March, for which she was started on a course of Coumadin.",
    "For her atrial fibrillation she was started on Coumadin.",  # the same told the other way round
])
def test_a_treatment_for_her_condition_overlaps_it_and_follows_it(note_pipeline, text):
    index, settings = _index_of(note_pipeline, _with_text(text), "mts-1430")
    v = verify_query(index, _overlap_query("atrial fibrillation", "condition", "coumadin", "medication"), settings)
    cue = "for which" if "which" in text else "for her"
    assert v.verdict.value == "supported" and f"stated overlap: '{cue}'" in v.relations[0].explanation.lower()
    assert verify_query(index, _overlap_query("atrial fibrillation", "condition", "coumadin", "medication", "before"),
                        settings).verdict.value == "supported"
    assert verify_query(index, _overlap_query("atrial fibrillation", "condition", "coumadin", "medication", "after"),
                        settings).verdict.value == "refuted"


@pytest.mark.parametrize(("text", "cue"), [
    # written for this test: findings a presentation names as one list are present together
    ("The patient presented with fever and cough.", "presented with"),
    ("She presented to the emergency room with fever, headache and cough.", "presented to the emergency room with"),
    ("He complains of cough with fever.", "complains of"),
    ("She reports a 2-day history of fever and cough.", "reports a 2-day history of"),
    ("On arrival she was febrile and coughing.", "was"),
    ("She was seen in the emergency room with fever and cough.", "was seen in the emergency room with"),
    ("On arrival she was febrile to 102.5 and coughing.", "was"),  # an item's own reading is part of it
])
def test_findings_told_together_overlap(note_pipeline, text, cue):
    explanation = _supports_overlap_only(note_pipeline, text, ("fever", "condition"), ("cough", "condition"))
    assert f"stated overlap: '{cue}'" in explanation


@pytest.mark.parametrize("text", [
    "The patient presented with fever and no cough.",
    "The patient presented with fever, then developed a cough.",
    "She presented with fever and was found to have a cough.",
    "She presented with fever after surgery and cough.",
    "He has a history of fever and cough.",
    "She denies fever and cough.",
])
def test_no_told_together_across_a_clause_time_or_negation(note_pipeline, text):
    index, settings = _index_of(note_pipeline, _with_text(text), "mts-1430")
    v = verify_query(index, _overlap_query("fever", "condition", "cough", "condition"), settings)
    assert v.verdict.value != "supported"
    assert not any(e.kind == "relation" and e.polarity == "supports" for e in v.evidence)


def test_a_procedure_is_never_told_together_with_its_finding(note_pipeline):
    text = "He presented with chest pain and cardiac catheterization."  # a list only in form
    index, settings = _index_of(note_pipeline, _with_text(text), "mts-1430")
    q = _overlap_query("chest pain", "condition", "cardiac catheterization", "procedure")
    assert verify_query(index, q, settings).verdict.value == "insufficient"


@pytest.mark.parametrize("text", [
    # written for this test: a treatment is given while the problem it treats holds
    "Her hyperkalemia was treated with insulin.",
    "Her hyperkalemia responded to insulin.",
    "She has hyperkalemia, currently managed with insulin.",
    "She was treated for hyperkalemia with insulin.",
])
def test_a_problem_treated_with_a_drug_overlaps_it_and_comes_first(note_pipeline, text):
    index, settings = _index_of(note_pipeline, _with_text(text), "mts-1430")
    for rel, verdict in (("overlaps", "supported"), ("before", "supported"), ("after", "refuted")):
        v = verify_query(index, _overlap_query("hyperkalemia", "condition", "insulin", "medication", rel), settings)
        assert v.verdict.value == verdict, (rel, v.relations[0].explanation)


@pytest.mark.parametrize("text", [
    # written for this test: what developed while a course went on began after the course did
    "During the heparin infusion she developed thrombocytopenia.",
    "While on heparin, she developed thrombocytopenia.",
])
def test_what_developed_during_a_course_follows_its_start_and_overlaps_it(note_pipeline, text):
    index, settings = _index_of(note_pipeline, _with_text(text), "mts-1430")
    for rel, verdict in (("overlaps", "supported"), ("before", "supported"), ("after", "refuted")):
        v = verify_query(index, _overlap_query("heparin", "medication", "thrombocytopenia", "condition", rel), settings)
        assert v.verdict.value == verdict, (rel, v.relations[0].explanation)


@pytest.mark.parametrize(("text", "first", "first_kind", "verdict"), [
    # written for this test: a problem named, and a drug or an act started at the next sentence's opening
    ("Chest x-ray showed a left lower lobe pneumonia.  Started ceftriaxone.", "pneumonia", "condition", "supported"),
    ("She was found to be in atrial fibrillation.  She was started on diltiazem.", "atrial fibrillation",
     "condition", "supported"),
    ("Chest x-ray shows a left lower lobe pneumonia.  She is started on ceftriaxone.", "pneumonia", "condition",
     "supported"),  # told in the present
    # a value that shows the problem, then what was started for it
    ("Her potassium was 6.1 on arrival.  She was started on insulin.", "potassium", "lab", "supported"),
    # a drug then a drug: the first is no problem the second was started for
    ("She took aspirin at home.  She was started on diltiazem.", "aspirin", "medication", "insufficient"),
    # a start that does not open the sentence is told by nothing
    ("Chest x-ray showed a left lower lobe pneumonia.  Blood cultures were drawn and she started ceftriaxone.",
     "pneumonia", "condition", "insufficient"),
])
def test_a_problem_then_a_start_at_the_next_opening(note_pipeline, text, first, first_kind, verdict):
    second = next((d, "medication") for d in ("diltiazem", "ceftriaxone", "insulin") if d in text)
    index, settings = _index_of(note_pipeline, _with_text(text), "mts-1430")
    v = verify_query(index, _overlap_query(first, first_kind, *second, "before"), settings)
    assert v.verdict.value == verdict, v.relations[0].explanation
    if verdict == "supported":
        assert re.search(r"stated order: '(?:is )?started", v.relations[0].explanation.lower())


@pytest.mark.parametrize(("text", "first", "first_kind", "verdict"), [
    # written for this test: a drug or an act for a condition comes after it, and while it holds
    ("She takes Coumadin for atrial fibrillation.", "coumadin", "medication", "supported"),
    ("He underwent cardioversion for atrial fibrillation.", "cardioversion", "procedure", "supported"),
    ("She was given Coumadin for atrial fibrillation prophylaxis.", "coumadin", "medication", "insufficient"),
    ("He underwent an echocardiogram for atrial fibrillation screening.", "echocardiogram", "procedure",
     "insufficient"),
    ("She had palpitations for atrial fibrillation.", "palpitations", "condition", "insufficient"),  # no treatment
])
def test_an_indication_comes_first_and_holds_during(note_pipeline, text, first, first_kind, verdict):
    index, settings = _index_of(note_pipeline, _with_text(text), "mts-1430")
    for rel in ("after", "overlaps"):
        v = verify_query(index, _overlap_query(first, first_kind, "atrial fibrillation", "condition", rel), settings)
        assert v.verdict.value == verdict, (rel, v.relations[0].explanation)
    if verdict == "supported":
        assert "stated order: 'for'" in verify_query(index, _overlap_query(
            first, first_kind, "atrial fibrillation", "condition", "after"), settings).relations[0].explanation


@pytest.mark.parametrize(("text", "value", "act", "verdict"), [
    # written for this test: a value that shows the problem is an indication too, a lab named alone is not
    ("HOSPITAL COURSE: ,She was given potassium chloride for a potassium of 2.9.,", ("potassium 2.9", "lab"),
     ("potassium chloride", "medication"), "supported"),
    ("HOSPITAL COURSE: ,She received 2 units of packed red blood cells for a hemoglobin of 6.9.,",
     ("hemoglobin 6.9", "lab"), ("blood transfusion", "procedure"), "supported"),
    ("HOSPITAL COURSE: ,Blood was drawn for a hemoglobin.,", ("hemoglobin", "lab"),
     ("blood draw", "procedure"), "insufficient"),
])
def test_a_value_is_an_indication(note_pipeline, text, value, act, verdict):
    v = _ask(note_pipeline, text, value, act, "before")
    assert v.verdict.value == verdict, v.relations[0].explanation
    if verdict == "supported":
        assert "stated order: 'for'" in v.relations[0].explanation


@pytest.mark.parametrize(("text", "cause", "cause_kind", "verdict"), [
    # written for this test: a condition from its cause came after it
    ("She developed acute kidney injury from dehydration.", "dehydration", "condition", "supported"),
    ("She was hypotensive from sepsis.", "sepsis", "condition", "supported"),
    ("She developed acute kidney injury from vancomycin.", "vancomycin", "medication", "supported"),
    ("She was transferred from the intensive care unit with acute kidney injury.", "intensive care unit",
     "procedure", "insufficient"),  # where she came from is no cause
])
def test_a_condition_from_its_cause_follows_it(note_pipeline, text, cause, cause_kind, verdict):
    index, settings = _index_of(note_pipeline, _with_text(text), "mts-1430")
    effect = "acute kidney injury" if "kidney" in text else "hypotension"
    v = verify_query(index, _overlap_query(cause, cause_kind, effect, "condition", "before"), settings)
    assert v.verdict.value == verdict, v.relations[0].explanation
    if verdict == "supported":
        assert "stated order: 'from'" in v.relations[0].explanation


@pytest.mark.parametrize("text", [
    "She had no GI bleed while on Coumadin.",
    "If she has a GI bleed while on Coumadin, stop it.",
    "FAMILY HISTORY: Her mother had a GI bleed while on Coumadin.\n",
    "She had a GI bleed. She was started on Coumadin.",  # narrative order is no overlap
    "She was admitted with a GI bleed and started on Coumadin.",  # "on" is the later act's
    "She had a GI bleed, and she was started on Coumadin.",  # a comma that opens another clause
])
def test_no_overlap_from_negated_hypothetical_family_or_narrative(note_pipeline, text):
    index, settings = _index_of(note_pipeline, _with_text(text), "mts-1430")
    v = verify_query(index, _overlap_query("gi bleed", "condition", "coumadin", "medication"), settings)
    assert v.verdict.value != "supported"
    assert not any(e.kind == "relation" and e.polarity == "supports" for e in v.evidence)


@pytest.mark.parametrize(("text", "within", "expected"), [
    ("She developed a rash two days after starting vancomycin.", "P3D", "supported"),  # 1-3 days fits 3
    ("She developed a rash two days after starting vancomycin.", "PT12H", "insufficient"),  # at least a day
    ("She was started on vancomycin.  The next morning she developed a rash.", "P2D", "supported"),
    ("She developed a rash after starting vancomycin.", "P3D", "insufficient"),  # order stated, gap not
])
def test_stated_order_meets_a_window_only_with_a_gap(note_pipeline, text, within, expected):
    index, settings = _index_of(note_pipeline, _with_text(text), "mts-1430")
    q = _overlap_query("vancomycin", "medication", "rash", "condition", "before", within)
    v = verify_query(index, q, settings)
    assert v.verdict.value == expected, v.relations[0].explanation


def test_stated_reverse_order_refutes_under_a_window_too(note_pipeline):
    index, settings = _index_of(note_pipeline, _with_text("She developed a rash two days after starting vancomycin."),
                                "mts-1430")
    v = verify_query(index, _overlap_query("rash", "condition", "vancomycin", "medication", "before", "P7D"), settings)
    assert v.verdict.value == "refuted" and v.failure.value == "opposite_order"


_TOLD = ("HISTORY OF PRESENT ILLNESS: She was started on vancomycin in clinic for cellulitis.  She then flew to "
         "see her sister.  On arrival she developed a diffuse rash and came to the emergency room.")


def test_a_placement_is_in_the_bundle_and_rechecked_by_the_contract(note_pipeline):
    """The order of telling decides the verdict only as an item of the hashed bundle, and the
    contract's re-check refuses the same item with a cue the note does not hold there, another
    rule, or its mentions swapped."""
    from dataclasses import replace

    from medeventgraph.core.discover.admit import admit
    from medeventgraph.core.discover.exhaustive import ground_all, simple_discovery
    from medeventgraph.core.evidence.stated import check_stated

    index, settings = _index_of(note_pipeline, _with_text(_TOLD), "mts-1430")
    q = _overlap_query("vancomycin", "medication", "rash", "condition", "before")
    v = verify_query(index, q, settings)
    assert v.verdict.value == "supported", v.relations[0].explanation
    assert "told in this order in the history of present illness" in v.relations[0].explanation
    bundle = admit(index, q, simple_discovery(index, q, settings, ground_all(index, q)).candidates)
    (placed,) = [s for s in bundle.stated if s.placement]
    items = {i.occurrence: i for i in bundle.items}
    assert check_stated(placed, q, items, index.documents)
    for forged in (replace(placed, cue_start=placed.cue_start + 1, cue=placed.cue[1:]),
                   replace(placed, rule="history-before-episode"),
                   replace(placed, earlier=placed.later, later=placed.earlier,
                           earlier_span=placed.later_span, later_span=placed.earlier_span)):
        assert not check_stated(forged, q, items, index.documents)


_TOLD_THEN_WORDS = ("HOSPITAL COURSE: After 60 minutes of heparin infusion, the pain persisted.  After two doses of "
                    "aspirin, there was relief and a heparin infusion was started at that time.")


def test_the_order_of_telling_yields_to_words_that_reverse_it(note_pipeline):
    """The heparin infusion is told first, but the words say it was started after the aspirin:
    the telling is the weaker basis and supports nothing; the words' reverse order refutes."""
    v = _ask(note_pipeline, _TOLD_THEN_WORDS, ("heparin infusion", "medication"), ("aspirin", "medication"), "before")
    assert v.verdict.value == "refuted", v.relations[0].explanation
    assert not any(e.kind == "relation" and e.polarity == "supports" for e in v.evidence)
    v = _ask(note_pipeline, _TOLD_THEN_WORDS, ("aspirin", "medication"), ("heparin infusion", "medication"), "before")
    assert v.verdict.value == "supported" and "stated order: 'After'" in v.relations[0].explanation


def test_words_about_a_later_telling_leave_the_first_standing(note_pipeline):
    """Words about an event told again later ("After the nosebleed, heparin was stopped") leave the
    first telling's order standing: events recur."""
    from medeventgraph.core.discover.admit import admit
    from medeventgraph.core.discover.exhaustive import ground_all, simple_discovery
    from medeventgraph.core.evidence.stated import undefeated

    text = ("HOSPITAL COURSE: She received heparin.  Her pain improved and she received aspirin.  Two weeks "
            "later she had a nosebleed.  After the nosebleed, heparin was stopped.")
    index, settings = _index_of(note_pipeline, _with_text(text), "mts-1430")
    q = _overlap_query("heparin", "medication", "nosebleed", "condition", "before")
    bundle = admit(index, q, simple_discovery(index, q, settings, ground_all(index, q)).candidates)
    first = text.index("nosebleed")
    standing = [(s.earlier_span[0], s.later_span[0]) for s in undefeated(bundle.stated) if s.placement]
    assert (text.index("heparin"), first) in standing
    assert (text.index("heparin"), text.index("nosebleed", first + 1)) not in standing  # that one the words reverse


@pytest.mark.parametrize("text", [
    "HOSPITAL COURSE: She developed a rash on hospital day 4.  She received vancomycin on hospital day 2.",
    "HOSPITAL COURSE: She developed a rash on POD #3.  Vancomycin was given on POD #1.",
    "HOSPITAL COURSE: At 1800 she developed a rash.  She received vancomycin at 1400.",
    "HISTORY OF PRESENT ILLNESS: She developed a rash this afternoon.  She received vancomycin this morning.",
    "HOSPITAL COURSE: She developed a rash on the day of discharge.  She received vancomycin on admission.",
])
def test_times_of_the_stay_told_in_reverse_support_no_told_order(note_pipeline, text):
    """Told in reverse, each with a time of the stay the record cannot date (no admission or
    operation date): the telling must not put the rash first."""
    index, settings = _index_of(note_pipeline, _with_text(text), "mts-1430")
    v = verify_query(index, _overlap_query("rash", "condition", "vancomycin", "medication", "before"), settings)
    assert v.verdict.value != "supported", v.relations[0].explanation
    assert not any(e.kind == "relation" and e.polarity == "supports" for e in v.evidence)


@pytest.mark.parametrize("text", [
    "HOSPITAL COURSE: She developed a rash on hospital day 4.  She received vancomycin on hospital day 2.",
    "HOSPITAL COURSE: She developed a rash on POD #3.  Vancomycin was given on POD #1.",
    "HISTORY OF PRESENT ILLNESS: She developed a rash this afternoon.  She received vancomycin this morning.",
])
def test_times_of_the_stay_told_in_reverse_order_by_their_counts(note_pipeline, text):
    """Each told with a time counted on one scale (the record has no admission or operation date to
    count from): the lower count first, cited in words, an item of the bundle the contract re-checks;
    it supports and never refutes (the reverse question is not refuted by it)."""
    from dataclasses import replace

    from medeventgraph.core.discover.admit import admit
    from medeventgraph.core.discover.exhaustive import ground_all, simple_discovery
    from medeventgraph.core.evidence.stated import check_stated

    index, settings = _index_of(note_pipeline, _with_text(text), "mts-1430")
    q = _overlap_query("vancomycin", "medication", "rash", "condition", "before")
    v = verify_query(index, q, settings)
    assert v.verdict.value == "supported", v.relations[0].explanation
    assert "dated by the times told" in v.relations[0].explanation
    bundle = admit(index, q, simple_discovery(index, q, settings, ground_all(index, q)).candidates)
    (placed,) = [s for s in bundle.stated if s.placement]
    items = {i.occurrence: i for i in bundle.items}
    assert placed.rule == "counted-times" and check_stated(placed, q, items, index.documents)
    assert not check_stated(replace(placed, earlier=placed.later, later=placed.earlier,
                                    earlier_span=placed.later_span, later_span=placed.earlier_span),
                            q, items, index.documents)
    reverse = verify_query(index, _overlap_query("rash", "condition", "vancomycin", "medication", "before"), settings)
    assert reverse.verdict.value == "insufficient"


def test_one_placement_orders_an_earlier_mention_before_each_later_one(note_pipeline):
    """One heading places one earlier mention before two later mentions: both orders are kept
    (each its own bundle item), so when the first later mention is planned, the second decides."""
    from medeventgraph.core.discover.admit import admit
    from medeventgraph.core.discover.exhaustive import ground_all, simple_discovery

    text = ("HISTORY OF PRESENT ILLNESS: She presented with right flank pain.  We recommended a nephrectomy.,"
            "OPERATIVE FINDINGS: The nephrectomy was uneventful.")
    index, settings = _index_of(note_pipeline, _with_text(text), "mts-1430")
    q = _overlap_query("right flank pain", "condition", "nephrectomy", "procedure", "before")
    bundle = admit(index, q, simple_discovery(index, q, settings, ground_all(index, q)).candidates)
    later = sorted(s.later_span for s in bundle.stated)
    assert len(later) == 2 and len({s.id for s in bundle.stated}) == 2
    v = verify_query(index, q, settings)
    assert v.verdict.value == "supported", v.relations[0].explanation


@pytest.mark.parametrize(("text", "expected"), [
    ("CURRENT MEDICATIONS: Coumadin 5 mg daily.,ASSESSMENT: Atrial fibrillation.", "supported"),
    ("HOSPITAL COURSE: She remains on Coumadin.,ASSESSMENT: Atrial fibrillation.", "supported"),
    # a hedged problem holds nothing now
    ("CURRENT MEDICATIONS: Coumadin 5 mg daily.,ASSESSMENT: Possible atrial fibrillation.", "insufficient"),
])
def test_both_current_when_written_supports_overlaps_only(note_pipeline, text, expected):
    index, settings = _index_of(note_pipeline, _with_text(text), "mts-1430")
    v = verify_query(index, _overlap_query("atrial fibrillation", "condition", "coumadin", "medication"), settings)
    assert v.verdict.value == expected, v.relations[0].explanation
    if expected == "supported":
        assert "told as current when the note was written" in v.relations[0].explanation
        for rel in ("before", "after"):
            q = _overlap_query("atrial fibrillation", "condition", "coumadin", "medication", rel)
            assert verify_query(index, q, settings).verdict.value != "supported"


@pytest.mark.parametrize(("text", "first", "first_kind", "second", "second_kind", "expected"), [
    ("HISTORY OF PRESENT ILLNESS: He had a colonoscopy in 2011.,IMPRESSION: Diverticulitis.",
     "colonoscopy", "procedure", "diverticulitis", "condition", "supported"),
    # a procedure an assessment names is the state it left, its act in the past: no order from it
    ("HISTORY OF PRESENT ILLNESS: He had a colonoscopy in 2011.,IMPRESSION: Infected gastrostomy tube placement.",
     "colonoscopy", "procedure", "gastrostomy tube placement", "procedure", "insufficient"),
])
def test_the_past_before_the_present_state_end_to_end(note_pipeline, text, first, first_kind, second, second_kind,
                                                       expected):
    index, settings = _index_of(note_pipeline, _with_text(text), "mts-1430")
    v = verify_query(index, _overlap_query(first, first_kind, second, second_kind, "before"), settings)
    assert v.verdict.value == expected, v.relations[0].explanation
    if expected == "supported":
        assert "told as past history: 'in 2011', before a current diagnosis" in v.relations[0].explanation


@pytest.mark.parametrize(("text", "expected"), [
    ("Possible GI bleed, continue Coumadin.", "insufficient"),  # the hedged end takes part in nothing
    ("GI bleed, continue Coumadin.", "supported"),
])
def test_a_hedged_end_takes_part_in_no_stated_relation(note_pipeline, text, expected):
    index, settings = _index_of(note_pipeline, _with_text(text), "mts-1430")
    v = verify_query(index, _overlap_query("gi bleed", "condition", "coumadin", "medication"), settings)
    assert v.verdict.value == expected, v.relations[0].explanation


def test_a_time_read_from_the_note_says_its_words(note_pipeline):
    """The bundle records the words a note mention's time was read from, and people read them."""
    from medeventgraph.wording.times import item_when, when_text

    text = ("HISTORY OF PRESENT ILLNESS: He was treated for pneumonia three weeks ago.,"
            "ASSESSMENT: Respiratory failure.")
    index, settings = _index_of(note_pipeline, _with_text(text), "mts-1430")
    v = verify_query(index, _overlap_query("pneumonia", "condition", "respiratory failure", "condition", "before"),
                     settings)
    assert v.verdict.value == "supported", v.relations[0].explanation
    (past,) = [e for e in v.evidence if e.concept == "pneumonia"]
    assert past.time.words == "three weeks ago"
    assert when_text(item_when(past)).endswith("(stated: 'three weeks ago')")
    (now,) = [e for e in v.evidence if e.kind == "condition" and e.concept != "pneumonia"]
    assert now.time.words is None and when_text(item_when(now)).startswith("note of")


def test_a_hyphenated_prefix_orders_a_question_end_to_end(note_pipeline):
    text = "HOSPITAL COURSE: Post-transfusion hemoglobin was 9.8.\n"
    index, settings = _index_of(note_pipeline, _with_text(text), "mts-1430")
    v = verify_query(index, _overlap_query("blood transfusion", "procedure", "hemoglobin", "lab", "before"), settings)
    assert v.verdict.value == "supported", v.relations[0].explanation
    assert "stated order: 'Post-'" in v.relations[0].explanation


@pytest.mark.parametrize(("text", "verdict"), [
    # the dose asked is the one the sentence gives the drug
    ("HOSPITAL COURSE: She was hypotensive.  Her Coreg was then decreased to 6.25 mg b.i.d.", "supported"),
    # another dose of the drug is another event; a planned dose further on is no dose given
    ("HOSPITAL COURSE: She was hypotensive.  She was then given Coreg 12.5 mg b.i.d.", "insufficient"),
    ("HOSPITAL COURSE: She was hypotensive.  Her Coreg was continued with a plan to reach 6.25 mg b.i.d. over weeks.",
     "insufficient"),
])
def test_a_drug_asked_with_its_dose_binds_only_that_dose(note_pipeline, text, verdict):
    index, settings = _index_of(note_pipeline, _with_text(text), "mts-1430")
    v = verify_query(index, _overlap_query("hypotension", "condition", "Coreg 6.25 mg", "medication", "before"),
                     settings)
    assert v.verdict.value == verdict, v.relations[0].explanation if v.relations else v.failure
    # the drug alone binds every dose
    alone = verify_query(index, _overlap_query("hypotension", "condition", "Coreg", "medication", "before"), settings)
    assert alone.verdict.value == "supported"


@pytest.mark.parametrize(("text", "verdict"), [
    ("ASSESSMENT AND PLAN: 1.  Pneumonia.  Continue ceftriaxone.", "supported"),
    # a problem of the past overlaps nothing given now
    ("ASSESSMENT AND PLAN: 1.  History of pneumonia.  Continue ceftriaxone.", "insufficient"),
    # an order to start is a plan (after two spaces, as real reports write)
    ("ASSESSMENT AND PLAN: 1.  Pneumonia.  Start ceftriaxone.", "insufficient"),
])
def test_a_problem_and_the_drug_continued_for_it_overlap_only_in_one_time(note_pipeline, text, verdict):
    index, settings = _index_of(note_pipeline, _with_text(text), "mts-1430")
    v = verify_query(index, _overlap_query("pneumonia", "condition", "ceftriaxone", "medication"), settings)
    assert v.verdict.value == verdict, v.relations[0].explanation if v.relations else v.failure


@pytest.mark.parametrize(("text", "a", "b"), [
    # "was irrigated and" reads like findings told together ("was febrile and tachycardic"), a rule
    # that relates no procedures: refused for these ends, the order of telling still decides
    ("DESCRIPTION OF PROCEDURE: ,The wound was irrigated and the skin was closed with staples.,",
     ("irrigation", "procedure"), ("skin closure", "procedure")),
    ("HOSPITAL COURSE: ,She was intubated and a central line was placed.,",
     ("intubation", "procedure"), ("central line placement", "procedure")),
])
def test_a_cue_refused_for_its_ends_leaves_the_order_to_the_next_reading(note_pipeline, text, a, b):
    v = _ask(note_pipeline, text, a, b, "before")
    assert v.verdict.value == "supported", v.relations[0].explanation
    assert "told in this order" in v.relations[0].explanation


@pytest.mark.parametrize(("text", "a", "verdict"), [
    # a general name grounds its subtypes; a subtype's name grounds only itself
    ("HOSPITAL COURSE: He had an NSTEMI and underwent cardiac catheterization.", "myocardial infarction", "supported"),
    ("HOSPITAL COURSE: He had an NSTEMI and underwent cardiac catheterization.", "STEMI", "insufficient"),
    ("HOSPITAL COURSE: He had melena and underwent cardiac catheterization.", "bleeding", "supported"),
    ("HOSPITAL COURSE: He had melena and underwent cardiac catheterization.", "hematemesis", "insufficient"),
    # words after "non" name the opposite: a non-ST elevation infarction is no STEMI, in any spelling
    ("HOSPITAL COURSE: He had a non-ST elevation myocardial infarction and underwent cardiac catheterization.",
     "STEMI", "insufficient"),
    ("HOSPITAL COURSE: He had a non-ST elevation myocardial infarction and underwent cardiac catheterization.",
     "NSTEMI", "supported"),
    # the general name read as a phrase as well, as any named condition is ("a myocardial infarct")
    ("HOSPITAL COURSE: He had a myocardial infarct and underwent cardiac catheterization.", "myocardial infarction",
     "supported"),
])
def test_a_general_condition_grounds_its_subtypes_end_to_end(note_pipeline, text, a, verdict):
    v = _ask(note_pipeline, text, (a, "condition"), ("cardiac catheterization", "procedure"), "before")
    assert v.verdict.value == verdict, v.relations[0].explanation


@pytest.mark.parametrize(("text", "verdict"), [
    # an act named as a purpose is done after the words naming it: the telling places it before nothing
    ("PROCEDURE: Informed consent was obtained for a colonoscopy.  The patient was sedated with propofol.",
     "insufficient"),
    ("PROCEDURE: A colonoscopy was performed.  The patient was then given propofol for agitation.", "supported"),
])
def test_an_act_named_as_a_purpose_is_no_earlier_end_of_the_telling(note_pipeline, text, verdict):
    v = _ask(note_pipeline, text, ("colonoscopy", "procedure"), ("propofol", "medication"), "before")
    assert v.verdict.value == verdict, v.relations[0].explanation


@pytest.mark.parametrize(("text", "asked", "verdict"), [
    # the ventilator's words are no intubation; the general name holds both
    ("HOSPITAL COURSE: She developed pneumonia.  She was then weaned from the ventilator.", "intubation",
     "insufficient"),
    ("HOSPITAL COURSE: She developed pneumonia.  She was then intubated.", "intubation", "supported"),
    ("HOSPITAL COURSE: She developed pneumonia.  She was then intubated.", "mechanical ventilation", "supported"),
])
def test_an_intubation_is_not_the_ventilation_that_went_on(note_pipeline, text, asked, verdict):
    v = _ask(note_pipeline, text, ("pneumonia", "condition"), (asked, "procedure"), "before")
    assert v.verdict.value == verdict, v.relations[0].explanation
