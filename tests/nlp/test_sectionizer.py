"""The sectionizer matches title patterns only where a title can start and writes no
`token._.section`: each note here gets the same sections and sentence starts as from medspaCy's
own `Sectionizer.__call__` on the same component (which matches every pattern at every token),
and the same heading matches as its matcher over the whole doc."""

from __future__ import annotations

import pytest
from medeventgraph.nlp.sections import HeadingMatcher
from medspacy.section_detection import Sectionizer as MedspacySectionizer
from medspacy.section_detection import SectionRule
from spacy.tokens import Doc

NOTES = (
    "",
    "   ",
    "Chest pain.",
    "CHIEF COMPLAINT:\nShortness of breath.\n\nHISTORY OF PRESENT ILLNESS: She has a history of asthma.\n",
    "# Chief Complaint\n- cough\n\n## History of Present Illness\nThe patient is a 40 year-old.\n### Plan\nRest.",
    "# # Medications\n##\nAllergies: none\n#",  # runs of '#', a run ending the doc, one ending a line
    "no rashes.,PAST MEDICAL HISTORY: , Asthma.,FAMILY HISTORY  Negative.,PLAN:  Follow up.",
    "Assessment and plan - stable. History of giant cell arteritis. HISTORY OF GIANT CELL ARTERITIS.",
    "Plan\nContinue lisinopril.\nA/P: improving. Medications: metformin. Patient instructions:\nRest",
    "Procedure: appendectomy\nProcedures performed -\nIndications: pain\nfindings : none\nReason for visit: cough",
)


def _upto_sectionizer(pipeline, text: str) -> Doc:
    """The doc as the sectionizer receives it (tokenizer and the components before it)."""
    doc = pipeline.nlp.make_doc(text)
    for name, component in pipeline.nlp.pipeline:
        if name == "medeventgraph_sectionizer":
            return doc
        doc = component(doc)
    raise AssertionError("no sectionizer in the pipeline")


def _sections(doc: Doc) -> list[tuple]:
    return [(s.category, s.title_span, s.body_span, s.parent, s.rule) for s in doc._.sections]


def _check(pipeline, text: str) -> None:
    sectionizer = pipeline.nlp.get_pipe("medeventgraph_sectionizer")
    ours, theirs = _upto_sectionizer(pipeline, text), _upto_sectionizer(pipeline, text)
    sectionizer(ours)
    MedspacySectionizer.__call__(sectionizer, theirs)
    assert _sections(ours) == _sections(theirs)
    assert [t.is_sent_start for t in ours] == [t.is_sent_start for t in theirs]
    assert sectionizer.headings(ours) == sectionizer.headings.whole(ours)


@pytest.mark.parametrize("text", NOTES)
def test_sections_are_medspacys(pipeline, text):
    _check(pipeline, text)


def test_sections_of_real_notes_are_medspacys(pipeline, synthea_notes, clinosim_notes):
    texts = dict.fromkeys(t.text for d in (*synthea_notes, *clinosim_notes) for t in d.texts)
    for text in texts:
        _check(pipeline, text)


def test_no_token_section_is_written(pipeline):
    """What the change leaves out (medspaCy sets it on every token; nothing reads it)."""
    doc = pipeline.nlp("CHIEF COMPLAINT:\nShortness of breath.\n")
    assert doc._.sections[0].category is not None
    assert all(t._.section is None for t in doc)


def test_a_tie_on_the_same_words_is_matched_whole(pipeline):
    """Two titles of one wording match the same tokens, and pruning keeps the first the whole
    Matcher found: the same one here."""
    rules = [SectionRule("Plan:", "plan", pattern=[{"LOWER": "plan"}]),
             SectionRule("Plan", "other", pattern=[{"LOWER": "plan"}])]
    rule_map = {f"{r.category}_{i}": r for i, r in enumerate(rules)}
    matcher = HeadingMatcher(pipeline.nlp.vocab, rule_map)
    doc = pipeline.nlp.make_doc("Plan\nRest. The plan is rest.")
    assert len(matcher.everywhere(doc)) == 4
    assert matcher(doc) == matcher.whole(doc)


def test_other_pattern_shapes_are_matched_whole(pipeline):
    rule = SectionRule("Exam", "exam", pattern=[{"LOWER": {"IN": ["exam", "examination"]}}])
    matcher = HeadingMatcher(pipeline.nlp.vocab, {"exam_0": rule})
    assert not matcher.windowed
    doc = pipeline.nlp.make_doc("Exam: normal. Examination\nnormal")
    assert matcher(doc) == matcher.whole(doc) and len(matcher(doc)) == 2


def test_a_word_starting_only_longer_titles_is_tried_where_their_second_word_follows(pipeline):
    rules = [SectionRule("Patient instructions", "plan", pattern=[{"LOWER": "patient"}, {"LOWER": "instructions"}]),
             SectionRule("Plan", "plan", pattern=[{"LOWER": "plan"}, {"LOWER": ":", "OP": "?"}])]
    matcher = HeadingMatcher(pipeline.nlp.vocab, {f"plan_{i}": r for i, r in enumerate(rules)})
    strings = pipeline.nlp.vocab.strings
    assert matcher.groups[(strings["patient"], None)][2] == {strings["instructions"]}
    assert matcher.groups[(strings["plan"], None)][2] is None  # 'plan' alone is a title
    doc = pipeline.nlp.make_doc("The patient is well.\nPatient instructions\nPlan: rest. Patient")
    assert matcher(doc) == matcher.whole(doc) and len(matcher(doc)) == 2  # "Plan:" over "Plan"
