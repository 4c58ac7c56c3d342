"""The lexicon: brand and generic names, clinical abbreviations, and short forms that bind no sense."""

from __future__ import annotations

import orjson
import pytest
from medeventgraph.core.index.patient_index import _target_terms
from medeventgraph.core.query.lexicon import load_lexicon
from medeventgraph.model.packaged import packaged_bytes
from pydantic import ValidationError

from ..nlp.conftest import make_note

LEXICON = load_lexicon()


@pytest.mark.parametrize(
    ("written", "concept"),
    [("Coumadin", "warfarin"), ("Cardizem", "diltiazem"), ("Flagyl", "metronidazole"), ("Zosyn", "piperacillin"),
     ("pip/tazo", "piperacillin"), ("Lasix", "furosemide"), ("Levaquin", "levofloxacin"), ("Rocephin", "ceftriaxone"),
     ("Vanc", "vancomycin"), ("Lovenox", "enoxaparin"), ("Heparin gtt", "heparin"), ("Protonix", "pantoprazole"),
     ("Zofran", "ondansetron"), ("Tylenol", "acetaminophen"), ("Motrin", "ibuprofen"), ("Toradol", "ketorolac"),
     ("Lopressor", "metoprolol"), ("Norvasc", "amlodipine"), ("Keflex", "cephalexin"),
     ("Bactrim", "sulfamethoxazole-trimethoprim"), ("Cipro", "ciprofloxacin"), ("Augmentin", "amoxicillin-clavulanate"),
     ("AKI", "acute kidney injury"), ("CKD", "chronic kidney disease"),
     ("DVT", "deep vein thrombosis"), ("melena", "melena"), ("NSTEMI", "non st segment elevation myocardial infarction"), ("SOB", "dyspnea"), ("HTN", "hypertension"),
     ("Cr", "creatinine"), ("BUN", "urea nitrogen"), ("SBP", "systolic blood pressure"), ("CHF", "heart failure"),
     ("COPD", "chronic obstructive pulmonary disease"), ("UTI", "urinary tract infection"),
     ("CXR", "chest radiograph"), ("chest x-ray", "chest radiograph"), ("heart cath", "cardiac catheterization"),
     ("LP", "lumbar puncture"), ("spinal tap", "lumbar puncture"), ("emesis", "vomiting"),
     ("ophthalmology exam", "eye examination"), ("tachycardic", "tachycardia"), ("hypoxemia", "hypoxia"),
     ("PRBCs", "blood transfusion"), ("units of blood", "blood transfusion"), ("packed cells", "blood transfusion"),
     ("packed red blood cell transfusion", "blood transfusion"),
     ("tachypneic", "tachypnea"), ("diaphoretic", "diaphoresis"), ("lethargic", "lethargy"),
     ("edematous", "edema"), ("loose stools", "diarrhea"), ("seized", "seizure"), ("endotracheal intubation", "endotracheal intubation"),
     ("upper endoscopy", "upper endoscopy"), ("EGD", "upper endoscopy"), ("general anesthesia", "general anesthesia"),
     ("general endotracheal anesthesia", "general anesthesia"),
     ("lap chole", "laparoscopic cholecystectomy"), ("I&D", "incision and drainage"),
     ("GERD", "gastroesophageal reflux disease"), ("acid reflux", "gastroesophageal reflux disease"),
     ("HbA1c", "hemoglobin a1c"), ("IV fluids", "intravenous fluids"), ("bladder infection", "urinary tract infection"),
     ("CABG", "coronary artery bypass"), ("coronary artery bypass graft", "coronary artery bypass"),
     ("Keppra", "levetiracetam"), ("Dilantin", "phenytoin"), ("Depakote", "valproate"), ("Benadryl", "diphenhydramine"),
     ("tPA", "alteplase"), ("Kayexalate", "sodium polystyrene sulfonate"), ("Unasyn", "ampicillin-sulbactam"),
     ("echo", "echocardiogram"), ("taken to the operating room", "surgery")],
)
def test_names_clinicians_write(written, concept):
    assert LEXICON.expand(written).concepts == (concept,)


@pytest.mark.parametrize(("one", "other"), [("upper endoscopy", "colonoscopy"), ("EGD", "colonoscopy")])
def test_two_procedures_of_one_family_are_two_concepts(one, other):
    # both are endoscopies, but a colonoscopy told after an upper endoscopy is not the same act
    assert not set(LEXICON.expand(one, "procedure").terms) & set(LEXICON.expand(other, "procedure").terms)


@pytest.mark.parametrize(("general", "kind", "subtypes"), [
    ("bleeding", "condition", ["melena", "hematemesis", "upper GI bleed", "lower GI bleed", "GI bleed"]),
    ("GI bleed", "condition", ["melena", "hematemesis", "lower gastrointestinal bleeding"]),
    ("MI", "condition", ["STEMI", "NSTEMI", "non-ST elevation myocardial infarction"]),
    ("PCI", "procedure", ["coronary stenting"]),
    ("dialysis", "procedure", ["hemodialysis", "peritoneal dialysis", "CRRT"]),
    ("sepsis", "condition", ["urosepsis", "severe sepsis"]),
    ("rash", "condition", ["hives"]),
    ("mechanical ventilation", "procedure", ["intubated", "ventilator"]),
    ("anesthesia", "procedure", ["general anesthesia", "spinal anesthesia"]),
])
def test_a_condition_or_act_names_its_subtypes_which_stay_specific(general, kind, subtypes):
    named = LEXICON.expand(general, kind)
    assert named.via == "class" and named.kind == kind
    for subtype in subtypes:
        specific = LEXICON.expand(subtype, kind)
        # the general name grounds the subtype; the subtype's name grounds not the rest
        assert set(specific.concepts) < set(named.concepts)


@pytest.mark.parametrize(("one", "other"), [
    ("STEMI", "NSTEMI"), ("melena", "hematemesis"), ("upper GI bleed", "lower GI bleed"),
    ("respiratory failure", "respiratory depression"), ("stent placement", "PCI"),
    ("hemodialysis", "peritoneal dialysis"), ("hemodialysis", "CRRT"), ("intubation", "ventilator"),
    ("general anesthesia", "spinal anesthesia"),
])
def test_siblings_and_neighbours_are_not_one_another(one, other):
    assert not set(LEXICON.expand(one).concepts) & set(LEXICON.expand(other).concepts)


def test_a_condition_class_grounds_no_question_of_another_kind():
    assert LEXICON.expand("bleeding", "medication").via == "literal"
    assert LEXICON.stated_dose("bleeding 2 units") is None  # only a drug is named before its dose


def test_a_member_of_an_unknown_class_or_one_of_another_kind_is_refused(tmp_path):
    raw = orjson.loads(packaged_bytes("medeventgraph.core", "lexicon.json"))
    next(c for c in raw["concepts"] if c["id"] == "melena")["classes"].append("antibiotic")
    path = tmp_path / "lexicon.json"
    path.write_bytes(orjson.dumps(raw))
    with pytest.raises(ValidationError, match="melena in antibiotic"):
        load_lexicon(path)


@pytest.mark.parametrize(("drug_class", "member", "brand"), [
    ("beta blocker", "labetalol", "Trandate"), ("ace inhibitor", "captopril", "Capoten"),
    ("angiotensin receptor blocker", "valsartan", "Diovan"), ("statin", "rosuvastatin", "Crestor"),
    ("anticoagulant", "dabigatran", "Pradaxa"), ("proton pump inhibitor", "omeprazole", "Prilosec"),
    ("opioid", "hydrocodone", "Norco"), ("loop diuretic", "bumetanide", "Bumex"),
    ("corticosteroid", "dexamethasone", "Decadron"), ("benzodiazepine", "alprazolam", "Xanax"),
    ("calcium channel blocker", "nifedipine", "Procardia"), ("antiemetic", "metoclopramide", "Reglan"),
    ("vasopressor", "phenylephrine", "Neo-Synephrine"), ("antidiabetic", "insulin glargine", "Lantus"),
])
def test_a_class_names_its_common_members_and_their_brands(drug_class, member, brand):
    assert member in LEXICON.expand(drug_class, "medication").concepts
    assert LEXICON.expand(brand).concepts == (member,)


def test_synonyms_written_alike_name_their_concept_once(tmp_path):
    raw = orjson.loads(packaged_bytes("medeventgraph.core", "lexicon.json"))
    concept = next(c for c in raw["concepts"] if c["id"] == "incision and drainage")
    concept["synonyms"].append("i & d")  # the same words as "i&d" once punctuation is set aside
    path = tmp_path / "lexicon.json"
    path.write_bytes(orjson.dumps(raw))
    assert load_lexicon(path).expand("I & D").concepts == ("incision and drainage",)


@pytest.mark.parametrize("form", ["PE", "MS", "ARF", "RA", "UA"])
def test_ambiguous_short_forms_bind_nothing(form):
    assert len(LEXICON.senses(form)) >= 2
    assert LEXICON.expand(form).concepts == ()
    assert form.lower() not in {s.lower() for s, _, _ in LEXICON.all_terms()}


def test_an_ambiguous_form_listed_as_a_synonym_is_rejected(tmp_path):
    raw = orjson.loads(packaged_bytes("medeventgraph.core", "lexicon.json"))
    raw["ambiguous"].append({"form": "aki", "senses": ["acute kidney injury", "something else"]})
    path = tmp_path / "lexicon.json"
    path.write_bytes(orjson.dumps(raw))
    with pytest.raises(ValidationError, match="aki"):
        load_lexicon(path)


def test_notes_bind_brand_names_and_abbreviations(note_pipeline):
    terms = _target_terms(LEXICON, [])
    text = ("Pt was started on Zosyn overnight and became hypotensive this AM, SBP 80s.\n"
            "h/o GI bleed while on Coumadin.\nCr bumped to 2.3 two days after vanc was begun.")
    found = {(text[m.source.start:m.source.end], m.concept.text, m.assertion.historical)
             for m in note_pipeline.mentions([make_note(text)], terms)}
    assert {("Zosyn", "piperacillin", False), ("SBP", "systolic blood pressure", False),
            ("GI bleed", "gastrointestinal bleeding", True), ("Coumadin", "warfarin", True), ("Cr", "creatinine", False),
            ("vanc", "vancomycin", False), ("hypotensive", "hypotension", False)} <= found


def test_notes_bind_the_other_names_of_tests_procedures_and_signs(note_pipeline):
    terms = _target_terms(LEXICON, [])
    text = ("A CXR showed an infiltrate. She underwent a left heart cath. An LP was performed. She had an "
            "episode of emesis and became tachycardic. She received 2 units of packed red blood cells. Her A1c was 8.2. An I&D of the abscess was performed.")
    found = {(text[m.source.start:m.source.end], m.concept.text) for m in note_pipeline.mentions([make_note(text)], terms)}
    assert {("CXR", "chest radiograph"), ("heart cath", "cardiac catheterization"), ("LP", "lumbar puncture"),
            ("emesis", "vomiting"), ("tachycardic", "tachycardia"),
            ("packed red blood cells", "blood transfusion"), ("A1c", "hemoglobin a1c"),
            ("I&D", "incision and drainage")} <= found


def test_an_ambiguous_form_binds_only_where_the_note_defines_it(note_pipeline):
    terms = _target_terms(LEXICON, [])
    undefined = "PE: lungs clear. PE ruled out."
    assert [m for m in note_pipeline.mentions([make_note(undefined, "u")], terms)
            if undefined[m.source.start:m.source.end] == "PE"] == []
    defined = "CT negative for pulmonary embolism (PE). Later, PE was ruled out again."
    pe = [m for m in note_pipeline.mentions([make_note(defined, "d")], terms)
          if defined[m.source.start:m.source.end] == "PE"]
    assert [(m.concept.text, m.assertion.negated) for m in pe] == [("pulmonary embolism", True)]


def test_drug_classes_clinicians_name():
    assert set(LEXICON.expand("antiepileptic drugs", "medication").concepts) >= {"levetiracetam", "phenytoin", "valproate"}
    assert set(LEXICON.expand("bronchodilators", "medication").concepts) == {"albuterol", "ipratropium"}
    assert LEXICON.expand("thrombolytics", "medication").concepts == ("alteplase",)


def test_a_dose_after_a_drug_is_read_apart():
    assert LEXICON.stated_dose("Coreg 6.25 mg b.i.d.") == ("6.25", "mg")
    assert LEXICON.expand("Coreg 6.25 mg b.i.d.", "medication").concepts == ("carvedilol",)
    assert LEXICON.stated_dose("Coreg") is None
    assert LEXICON.stated_dose("potassium 6.1 meq", "lab") is None
    assert LEXICON.stated_dose("D50 25 ml") is None  # no drug the lexicon names: the text stays whole
