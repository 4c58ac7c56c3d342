"""Events split or reordered across a clause (nlp/phrases.py), on sentences written for these tests."""

from __future__ import annotations

import pytest
from medeventgraph.model.occurrence import Kind
from medeventgraph.nlp import TargetTerm
from medeventgraph.nlp.phrases import (
    check_phrase,
    find_phrases,
    named_at,
    named_splits,
    phrase_slots,
    shared_stems,
)

from .conftest import make_note

STEMS = shared_stems()


def _found(event: str, sentence: str) -> list[str]:
    slots = phrase_slots(event, STEMS)
    assert slots is not None
    return [sentence[f.start:f.end] for f in find_phrases(sentence, slots, STEMS)]


@pytest.mark.parametrize(("event", "sentence", "words"), [
    # a nominalised act told with its verb, before or after its object
    ("appendix removal", "The appendix was removed without difficulty.", "appendix was removed"),
    ("removal of the appendix", "At surgery the inflamed appendix was removed.", "appendix was removed"),
    ("tube insertion", "We then inserted a chest tube on the left.", "inserted a chest tube"),
    ("artery ligation", "The cystic artery was doubly ligated and divided.", "artery was doubly ligated"),
    ("platelet transfusion", "He was transfused six units of platelets overnight.", "transfused six units of platelets"),
    ("intubation", "She was intubated in the field.", "intubated"),
    # a condition's noun told by its adjective, a reversed compound, a list sharing its modifier
    ("anemia", "He was found to be anemic on arrival.", "anemic"),
    ("CHF exacerbation", "Admitted with an exacerbation of his CHF.", "exacerbation of his CHF"),
    ("knee swelling", "She noted swelling of both knees after the fall.", "swelling of both knees"),
    ("lower extremity numbness", "Bilateral lower extremity tingling, numbness and weakness.",
     "lower extremity tingling, numbness"),
    # an '-ectomy' word read as its organ and its act, both ways
    ("splenectomy", "The spleen was then resected en bloc.", "spleen was then resected"),
    ("gallbladder removal", "She had a cholecystectomy in 2010.", "cholecystectomy"),
    # a short form fills the words it stands for, both ways
    ("packed red blood cell transfusion", "Status post transfusion of two units of PRBCs.",
     "transfusion of two units of PRBCs"),
    ("chronic obstructive pulmonary disease exacerbation", "Admitted for a COPD exacerbation.", "COPD exacerbation"),
    ("DVT", "He developed a deep vein thrombosis of the left leg.", "deep vein thrombosis"),
    ("heparin-induced thrombocytopenia", "Course complicated by HIT on day 5.", "HIT"),
    ("thrombocytopenia", "Course complicated by HIT on day 5.", "HIT"),
    ("total knee arthroplasty", "She is 3 weeks out from her right TKA.", "TKA"),
    ("TEE", "A transesophageal echocardiogram showed no thrombus.", "transesophageal echocardiogram"),
    ("small bowel obstruction", "Admitted with a recurrent SBO.", "SBO"),
    # a change named by the query, told by the note in other words
    ("elevated troponin", "Her troponin rose overnight.", "troponin rose"),
    ("low platelets", "His platelets fell to 40 after heparin.", "platelets fell"),
    ("ANC 900", "Her ANC on discharge was 900.", "ANC on discharge was 900"),
    ("Tylenol No. 3", "Discharged on Tylenol No. 3 as needed.", "Tylenol No. 3"),
    # an organ's adjective and its noun fill each other's slot
    ("ureteral ligation", "The left ureter was then ligated with silk.", "ureter was then ligated"),
    ("renal biopsy", "A core biopsy of the kidney was obtained.", "biopsy of the kidney"),
    ("heart catheterization", "She underwent cardiac catheterization in May.", "cardiac catheterization"),
    # a clipped word and the whole word fill each other's slot
    ("coagulase-negative Staphylococcus", "Both blood cultures grew coag neg Staph.", "coag neg Staph"),
    ("Streptococcus pneumoniae", "Sputum grew Strep pneumoniae.", "Strep pneumoniae"),
    ("liver biopsy", "A liver bx was done in May.", "liver bx"),
    # a word told by its parts (word_parts), both ways
    ("oxygen desaturation", "Overnight his oxygen saturations fell to 84%.", "oxygen saturations fell"),
    ("desaturation", "During the transfer her saturation decreased to 88%.", "saturation decreased"),
    ("low oxygen saturation", "Brief oxygen desaturation with feeds.", "oxygen desaturation"),
    # "status post" / "s/p" attach a procedure to the condition (and its site) named before it
    ("carotid stent placement", "Carotid artery stenosis, status post stent placement in 2015.",
     "Carotid artery stenosis, status post stent placement"),
    ("right breast carcinoma excision", "Right breast carcinoma s/p wide local excision.",
     "Right breast carcinoma s/p wide local excision"),
    # a word told by its verb's irregular forms
    ("fall", "She tripped on the stairs and fell backwards.", "fell"),
    ("ankle swelling", "By evening both ankles were swollen.", "ankles were swollen"),
    ("blood draw", "Blood was drawn from the left arm.", "Blood was drawn"),
    # the verbs of one act on a device or a lesion (act_words) fill each other's slot
    ("ureteral stent placement", "A 6 French ureteral stent was passed over the guidewire.",
     "ureteral stent was passed"),
    ("drain insertion", "A closed suction drain was placed in the wound.", "drain was placed"),
    ("lead placement", "The atrial lead was implanted in the appendage.", "lead was implanted"),
    ("nevus removal", "The nevus was excised with 2 mm margins.", "nevus was excised"),
    ("generator exchange", "The pulse generator was replaced without difficulty.", "generator was replaced"),
    # a noun the stemmer leaves apart from its verb, told by the verb as a passive participle
    ("fascia closure", "The fascia was then closed with running PDS.", "fascia was then closed"),
    ("vessel division", "The short gastric vessels were divided.", "vessels were divided"),
    # the last of a list of participles after one auxiliary
    ("artery division", "The renal artery was ligated and divided.", "artery was ligated and divided"),
    ("duct division", "The cystic duct was clipped, ligated and divided.", "duct was clipped, ligated and divided"),
    ("fracture fixation", "The fracture was fixed with a 6-hole plate.", "fracture was fixed"),
    ("graft occlusion", "The vein graft is occluded at its origin.", "graft is occluded"),
    ("closure", "The tourniquet was deflated and the wound was closed.", "was closed"),  # cited with its auxiliary
    # a '-scopy' word told by its instrument put in
    ("cystoscopy", "A 21-French cystoscope was inserted into the bladder.", "cystoscope was inserted"),
    ("bronchoscopy", "The bronchoscope was passed through the endotracheal tube.", "bronchoscope was passed"),
    # a noun and its verb the stemmer cannot join; a measure for what it measures
    ("loss of consciousness", "He fell and lost consciousness briefly.", "lost consciousness"),
    ("weight loss", "She has lost weight since the spring.", "lost weight"),
    ("weight loss", "He has lost about 10 pounds over the past month.", "lost about 10 pounds"),
    # clinical verbs no English word list holds
    ("cardioversion", "She was cardioverted at 200 joules.", "cardioverted"),
    ("diuresis", "He was diuresed with IV furosemide.", "diuresed"),
    # an injury told by the blow ("hit her head": a head injury)
    ("head injury", "She fell and hit her head on the table.", "hit her head"),
    ("knee injury", "He bumped his knee on the door.", "bumped his knee"),
])
def test_split_and_reordered_events_are_found(event: str, sentence: str, words: str) -> None:
    assert _found(event, sentence) == [words]


@pytest.mark.parametrize(("event", "sentence"), [
    ("kidney biopsy", "The liver biopsy was benign; kidney function is normal."),  # a clause break between
    ("kidney biopsy", "A biopsy of the liver showed metastatic kidney cancer."),  # too many other words
    ("appendix removal", "The appendix appeared normal but the ovarian cyst was removed."),
    ("chest tube insertion", "A chest tube was considered."),  # the act is not told
    ("spleen biopsy", "The spleen was normal in size. A liver biopsy was taken."),  # two sentences
    ("heparin-induced thrombocytopenia", "He was hit by a car."),  # a short form only as written, in capitals
    ("head injury", "She hit the wall with her fist; her head CT was normal."),  # a clause break between
    # a short form alone names its long form's head: "HIT" is a thrombocytopenia, not heparin
    ("heparin", "Course complicated by HIT on day 5."),
    ("packed red blood", "Two units of PRBCs were given."),
    ("elevated troponin", "Her troponin was stable."),
    ("fall", "Her potassium dropped overnight."),  # the event named by the word is no qualifier
    ("left flank pain", "Flank pain and left shoulder stiffness."),  # 'left' is the shoulder's
    ("ANC 900", "ANC was pending."),  # a number of the event is one of its words
    ("tracheostomy", "The tube was removed."),  # an '-ostomy' or unknown '-ectomy' word is only itself
    ("thrombectomy", "The catheter was removed."),
    ("balloon dilation", "A balloon dilator was prepared."),  # the instrument is not the act
    ("oxygen desaturation", "Her oxygen saturation was 98% and stable."),  # a part is not the word
    # an adjective that also names another part is not paired: a femoral artery is no femur's
    ("femoral artery puncture", "The femur was fractured and the artery was punctured."),
    # a linking phrase counts no words only where its words stand together
    ("carotid stent placement", "Carotid artery stenosis, status unclear post stent placement."),
    # a laterality word is never the verb it spells ('left' is no form of 'leave')
    ("left arm pain", "Leaving the clinic, arm pain began."),
    # a verb with a common other sense is in no act group: a diet or a sheath 'advanced' is not placed
    ("sheath placement", "The sheath was advanced into the iliac artery."),
    ("stent removal", "The stent was placed across the stricture."),  # acts of different groups
    ("stent implantation", "Fluoroscopy confirmed good stent position."),  # where it is, not the act
    # a noun's verb tells it only as a passive participle: an active verb has another object
    ("respiratory failure", "She failed extubation and had respiratory distress."),
    ("heart failure", "He failed medical therapy for his heart murmur."),
    ("wound closure", "Closed wound suction drains were placed."),
    ("blood pressure", "Blood was pressed from the wound."),  # a noun that is not its verb's ('pressure')
    ("weight loss", "He was told to avoid lifting more than 10 pounds."),
    # the instrument alone, or taken out, is no '-scopy'
    ("laparoscopy", "A laparoscope was available in the room."),
    ("cystoscopy", "The cystoscope was removed and the bladder drained."),
])
def test_words_not_told_together_are_no_phrase(event: str, sentence: str) -> None:
    assert _found(event, sentence) == []


def test_a_droppable_modifier_is_left_out_only_by_request_and_recorded() -> None:
    full = phrase_slots("laparoscopic appendectomy", STEMS)
    without = phrase_slots("laparoscopic appendectomy", STEMS, drop=True)
    assert full is not None and without is not None and without.dropped == ("laparoscopic",)
    sentence = "The appendix was removed through a small incision."
    assert find_phrases(sentence, full, STEMS) == []
    [found] = find_phrases(sentence, without, STEMS)
    assert found.dropped == ("laparoscopic",)
    assert phrase_slots("kidney biopsy", STEMS, drop=True) is None  # nothing droppable: no partial form


def test_check_reads_the_pieces_again() -> None:
    sentence = "The gallbladder was removed and sent to pathology."
    [found] = find_phrases(sentence, phrase_slots("gallbladder removal", STEMS), STEMS)  # type: ignore[arg-type]
    cited = sentence[found.start:found.end]
    pieces = tuple((s - found.start, e - found.start) for s, e in found.pieces)
    assert check_phrase(cited, "gallbladder removal", pieces, ())
    assert not check_phrase(cited, "appendix removal", pieces, ())  # another event's words
    assert not check_phrase(cited, "gallbladder removal", ((0, 11), (12, 15)), ())  # "was" fills no slot
    assert not check_phrase(cited + " and", "gallbladder removal", pieces, ())  # cited text past the last piece
    assert not check_phrase(cited, "gallbladder removal", pieces, ("laparoscopic",))  # nothing was left out
    assert not check_phrase("gallbladder; was removed", "gallbladder removal", ((0, 11), (16, 23)), ())  # a break


@pytest.mark.parametrize(("event", "sentence"), [
    ("small cell carcinoma", "A biopsy showed non-small cell carcinoma of the lung."),
    ("st elevation myocardial infarction", "He had a non ST elevation myocardial infarction."),
])
def test_words_after_non_name_the_opposite(event: str, sentence: str) -> None:
    assert _found(event, sentence) == []
    assert _found(event, sentence.replace("non-", "").replace("non ", "")) != []


def test_the_contract_refuses_a_phrase_cited_after_non() -> None:
    cited, pieces = "small cell carcinoma", ((0, 5), (6, 10), (11, 20))
    assert check_phrase(cited, "small cell carcinoma", pieces, (), preceding="A biopsy showed ")
    assert not check_phrase(cited, "small cell carcinoma", pieces, (), preceding="A biopsy showed non-")


def test_check_reads_a_participle_with_its_auxiliary() -> None:
    assert check_phrase("was closed", "closure", ((4, 10),), ())
    assert not check_phrase("closed", "closure", ((0, 6),), ())  # no auxiliary in the cited words: no passive
    assert not check_phrase("wound closed", "closure", ((6, 12),), ())  # a word before it that is no auxiliary


def test_pipeline_cites_a_phrase_by_the_notes_own_words(pipeline) -> None:
    text = "Hospital course: On day two the gallbladder was removed laparoscopically. She did well."
    term = TargetTerm("gallbladder removal", "gallbladder removal", Kind.PROCEDURE, "query")
    [mention] = pipeline.mentions([make_note(text)], [term])
    assert text[mention.source.start:mention.source.end] == "gallbladder was removed"
    assert mention.concept.text == "gallbladder was removed"  # the note's words, not the term's
    assert mention.extra_value("phrase_term") == "gallbladder removal"
    assert mention.extra_value("phrase_pieces") == "0-11,16-23"
    # a lexicon or record term is never looked for split: only the query's own words are
    record = TargetTerm("gallbladder removal", "gallbladder removal", Kind.PROCEDURE, "record")
    assert pipeline.mentions([make_note(text)], [record]) == []


def test_a_contiguous_mention_wins_over_a_phrase(pipeline) -> None:
    text = "Plan: gallbladder removal next week. The gallbladder was removed in 2019."
    term = TargetTerm("gallbladder removal", "gallbladder removal", Kind.PROCEDURE, "query")
    found = pipeline.mentions([make_note(text)], [term])
    assert [text[m.source.start:m.source.end] for m in found] == ["gallbladder removal", "gallbladder was removed"]
    assert [m.extra_value("phrase_term") for m in found] == [None, "gallbladder removal"]


@pytest.mark.parametrize(("event", "text", "words"), [
    ("appendix removal", "Surgical history: she had an appendectomy as a child.", "appendectomy"),
    ("packed red blood cell transfusion", "On day 2 he was transfused 2 units PRBCs.", "transfused 2 units PRBCs"),
    ("elevated troponin", "Her troponin rose overnight.", "troponin rose"),
])
def test_the_notes_quick_test_keeps_every_form_that_fills_a_slot(pipeline, event: str, text: str, words: str) -> None:
    """The pipeline skips notes lacking a cue of some slot (`Stems.cues`): an '-ectomy' word, a
    short form and a synonym of a qualifier still fill theirs."""
    term = TargetTerm(event, event, Kind.PROCEDURE, "query")
    assert [text[m.source.start:m.source.end] for m in pipeline.mentions([make_note(text)], [term])] == [words]


def _named(event: str, text: str) -> list[tuple[str, str]]:
    """(the words found, the words that name the left-out ones) for the fewest left out."""
    for split in named_splits(event, STEMS):
        found = [(f, named_at(text, f.pieces, split, STEMS)) for f in find_phrases(text, split.rest, STEMS)]
        out = [(text[f.start:f.end], text[n[0]:n[1]]) for f, n in found if n is not None]
        if out:
            return out
    return []


@pytest.mark.parametrize(("event", "text", "found"), [
    ("insulin pump malfunction", "Diabetes on an insulin pump. In May the pump malfunctioned.",
     [("pump malfunctioned", "insulin pump")]),
    ("AV fistula placement", "Reason: thrombosed AV fistula. The fistula was placed in 2019.",
     [("fistula was placed", "AV fistula")]),
    # the note names the leading words in its own order, joined or not
    ("double-J ureteral stent placement", "Drains: a ureteral double-J stent. Then the stent was placed.",
     [("stent was placed", "ureteral double-J stent")]),
])
def test_leading_words_named_earlier_may_be_left_out(event: str, text: str, found: list) -> None:
    assert _named(event, text) == found


@pytest.mark.parametrize(("event", "text"), [
    # the noun where the phrase is found is another kind of it
    ("insulin pump malfunction", "Diabetes on an insulin pump. In May her feeding pump malfunctioned."),
    # another kind of the noun named in between
    ("insulin pump malfunction", "Diabetes on an insulin pump. She also has a feeding pump. The pump malfunctioned."),
    # named only after the phrase: no earlier naming to refer to
    ("insulin pump malfunction", "In May the pump malfunctioned. She has an insulin pump."),
    # not named with exactly the left-out words
    ("left ureteral stent placement", "A right ureteral stent is in place. The stent was placed in May."),
])
def test_leading_words_not_named_for_that_noun_are_not_left_out(event: str, text: str) -> None:
    assert _named(event, text) == []


def test_check_reads_the_named_words_again() -> None:
    text = "Diabetes on an insulin pump. In May the pump malfunctioned."
    [split] = named_splits("insulin pump malfunction", STEMS)
    [found] = find_phrases(text, split.rest, STEMS)
    cited, preceding = text[found.start:found.end], text[:found.start]
    pieces = tuple((s - found.start, e - found.start) for s, e in found.pieces)
    named = named_at(text, found.pieces, split, STEMS)
    assert named == (15, 27)
    assert check_phrase(cited, "insulin pump malfunction", pieces, ("insulin",), named=named, preceding=preceding)
    assert not check_phrase(cited, "insulin pump malfunction", pieces, ("insulin",), named=(0, 8), preceding=preceding)
    assert not check_phrase(cited, "insulin pump malfunction", pieces, ("insulin",), named=named, preceding=None)
    assert not check_phrase(cited, "insulin pump malfunction", pieces, ("insulin",), named=named,
                            preceding=preceding.replace("insulin", "feeding"))


def test_a_sentence_stated_again_is_found_again_from_its_kept_stems(pipeline) -> None:
    """The term matcher keeps each sentence's stems per text: a note repeating a sentence, and
    another note stating it, find the phrase at each place as a first read does."""
    sentence = "On day two the gallbladder was removed laparoscopically."
    term = TargetTerm("gallbladder removal", "gallbladder removal", Kind.PROCEDURE, "query")
    matcher = pipeline._matcher([term])
    matcher._bag.cache_clear()
    text = f"Hospital course: {sentence}\nPLAN: Home.\n{sentence}\n"
    found = pipeline.mentions([make_note(text, "bag-1")], [term])
    assert [text[m.source.start:m.source.end] for m in found] == ["gallbladder was removed"] * 2
    assert len({m.source.start for m in found}) == 2 and matcher._bag.cache_info().hits >= 1
    other = f"Brief history. {sentence}"
    [again] = pipeline.mentions([make_note(other, "bag-2")], [term])
    assert other[again.source.start:again.source.end] == "gallbladder was removed"
