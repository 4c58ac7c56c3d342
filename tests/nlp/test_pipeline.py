"""Whole-pipeline behaviour: real notes, exact spans, copies, cache, determinism, sentences."""

from __future__ import annotations

from datetime import timedelta

import pytest
from medeventgraph.model.occurrence import Kind
from medeventgraph.nlp import NotePipeline, TargetTerm
from medeventgraph.nlp.rules import load_context_specs, load_section_specs

from .conftest import AKI_TERMS, NOTE_DATE, make_note

SYNTHEA_TERMS = (
    TargetTerm("stress", "stress", Kind.CONDITION, "record"),
    TargetTerm("lisinopril", "lisinopril", Kind.MEDICATION, "query"),
    TargetTerm("cough", "cough", Kind.CONDITION, "lexicon"),
    TargetTerm("myocardial infarction", "myocardial infarction", Kind.CONDITION, "record"),
    TargetTerm("smoking", "tobacco use", Kind.OBSERVATION, "lexicon"),
    TargetTerm("hypertension", "hypertension", Kind.CONDITION, "lexicon"),
    TargetTerm("allergies", "allergy", Kind.ALLERGY, "lexicon"),
    TargetTerm("medication review due", "medication review due", Kind.PROCEDURE, "record"),
)


def _note_text(documents, occ):
    doc = next(d for d in documents if d.reference == occ.reference)
    return next(t.text for t in doc.texts if t.attachment == occ.source.attachment)


def test_all_synthea_notes_spans_exact(pipeline, synthea_notes):
    occs = pipeline.mentions(synthea_notes, SYNTHEA_TERMS)
    assert len(occs) > 1000
    texts = {(d.reference, t.attachment): t.text for d in synthea_notes for t in d.texts}
    for o in occs:
        text = texts[(o.reference, o.source.attachment)]
        assert text[o.source.start:o.source.end] == o.extra_value("literal")
        assert text[o.source.start:o.source.end].lower() in {t.literal.lower() for t in SYNTHEA_TERMS}
        s0, s1 = int(o.extra_value("sentence_start")), int(o.extra_value("sentence_end"))
        assert s0 <= o.source.start < o.source.end <= s1 and text[s0:s1] == o.text
    assert len({o.id for o in occs}) == len(occs)
    # Synthea writes every note twice (DocumentReference + DiagnosticReport.presentedForm):
    # every DiagnosticReport mention is a copy, and copies point at an existing occurrence.
    ids = {o.id for o in occs}
    assert all(o.extra_value("copied_from") in ids for o in occs if o.reference.startswith("DiagnosticReport"))
    # "history of ... stress" in the HPI is historical; "quit smoking" is not negated
    stress = [o for o in occs if o.concept.text == "stress" and o.source.section == "history_of_present_illness"]
    assert stress and all(o.assertion.historical for o in stress)


def test_all_synthea_notes_sentences_exact(pipeline, synthea_notes):
    for document in synthea_notes:
        text = document.texts[0].text
        sentences = pipeline.sentences(document)
        assert sentences
        for s in sentences:
            assert text[s.start:s.end] == s.text and s.text == s.text.strip()
        assert not any(s.text.startswith("#") for s in sentences)  # headings are not sentences


def test_clinosim_notes_spans_exact(pipeline, clinosim_notes):
    terms = [TargetTerm("vancomycin", "vancomycin", Kind.MEDICATION, "query"),
             TargetTerm("acute respiratory distress syndrome", "ARDS", Kind.CONDITION, "record")]
    occs = pipeline.mentions(clinosim_notes, terms)
    assert occs
    texts = {(d.reference, t.attachment): t.text for d in clinosim_notes for t in d.texts}
    for o in occs:
        assert texts[(o.reference, o.source.attachment)][o.source.start:o.source.end] == o.extra_value("literal")


def test_deterministic_and_cached(synthea_notes):
    fresh = NotePipeline(cache_size=4096)
    docs = synthea_notes[:60]
    first = fresh.mentions(docs, SYNTHEA_TERMS)
    computed = fresh.cache.stats.computed
    assert computed <= len(docs)
    second = fresh.mentions(list(docs), SYNTHEA_TERMS)
    assert second == first
    assert fresh.cache.stats.computed == computed  # no NLP re-run
    other = fresh.mentions(docs, [TargetTerm("Patient", "patient", None)])  # new terms, still no NLP
    assert other and fresh.cache.stats.computed == computed


def test_changed_text_is_reprocessed(pipeline):
    a = make_note("AKI present.", "v1")
    b = make_note("No AKI.", "v1")  # same id, new content
    assert pipeline.mentions([a], AKI_TERMS)[0].assertion.negated is False
    assert pipeline.mentions([b], AKI_TERMS)[0].assertion.negated is True


def test_copied_forward_sentences(pipeline):
    template = "Patient has a long standing history of AKI after vancomycin."
    early = make_note(f"Day 1. {template}", "early", date=NOTE_DATE)
    late = make_note(f"Day 3 note.\n{template}\nNew pneumonia today.", "late", date=NOTE_DATE + timedelta(days=2))
    other_patient = make_note(template, "other", patient="Patient/p2", date=NOTE_DATE + timedelta(days=3))
    occs = pipeline.mentions([late, other_patient, early], AKI_TERMS)  # input order is not time order
    by_id = {o.id: o for o in occs}
    late_aki = next(o for o in occs if o.reference == "DocumentReference/late" and o.extra_value("literal") == "AKI")
    early_aki = next(o for o in occs if o.reference == "DocumentReference/early" and o.extra_value("literal") == "AKI")
    assert late_aki.extra_value("copied_from") == early_aki.id
    assert by_id[early_aki.id].extra_value("copied_from") is None
    assert all(o.extra_value("copied_from") is None for o in occs if o.patient == "Patient/p2")
    pneumonia = next(o for o in occs if o.concept.text == "pneumonia")
    assert pneumonia.extra_value("copied_from") is None
    assert occs[0].reference == "DocumentReference/late"  # output follows input order


def test_short_repeats_are_not_copies_but_duplicate_notes_are(pipeline):
    a = make_note("- AKI", "a", date=NOTE_DATE)
    b = make_note("- AKI\n", "b", date=NOTE_DATE + timedelta(days=1))
    twin = make_note("- AKI", "a", resource_type="DiagnosticReport", date=NOTE_DATE)
    occs = pipeline.mentions([a, b, twin], AKI_TERMS)
    got = {o.reference: o.extra_value("copied_from") for o in occs}
    assert got["DocumentReference/b"] is None
    assert got["DiagnosticReport/a"] == "DocumentReference/a#s2-5"


def test_rule_files_load_as_typed_models():
    sections = load_section_specs()
    assert {"past_medical_history", "family_history", "assessment_and_plan", "medications"} <= {
        s.category for s in sections}
    assert any(r.direction == "PSEUDO" for r in load_context_specs())


def test_bad_splitter_rejected():
    with pytest.raises(ValueError):
        NotePipeline(sentence_splitter="nope")


def test_max_note_chars_truncates_processing_only():
    small = NotePipeline(max_note_chars=40, cache_size=8)
    text = "AKI noted. " * 10
    occs = small.mentions([make_note(text)], AKI_TERMS)
    assert occs and all(o.source.end <= 40 for o in occs)


def test_pyrush_splitter_option(synthea_notes):
    rush = NotePipeline(sentence_splitter="pyrush", cache_size=8)
    doc = synthea_notes[0]
    text = doc.texts[0].text
    for s in rush.sentences(doc):
        assert text[s.start:s.end] == s.text
    assert rush.mentions([doc], SYNTHEA_TERMS) == NotePipeline(cache_size=8).mentions([doc], SYNTHEA_TERMS)


def test_values_and_mentions_read_each_note_once(pipeline, monkeypatch):
    """One pass for both (build_index): with nothing cached, each note runs the NLP once."""
    from medeventgraph.nlp.cache import NoteCache

    docs = [make_note("Labs this morning: K 6.1, Cr 2.3. AKI after vancomycin.", "once-1"),
            make_note("BP 80/40 on arrival. No AKI.", "once-2")]
    monkeypatch.setattr(pipeline, "cache", NoteCache(0))
    values, mentions = pipeline.read(docs, AKI_TERMS)
    assert pipeline.cache.stats.computed == len(docs)
    assert values == pipeline.values(docs) and mentions == pipeline.mentions(docs, AKI_TERMS)
    assert {o.value.quantity for o in values} == {6.1, 2.3, 80.0, 40.0}
    assert sum(o.concept.text == "acute kidney injury" for o in mentions) == 2


def test_terms_with_short_function_words_are_found(pipeline):
    """'of', 'in', 'to' inside a term key as the note's own lower-case short words do, so a
    multi-word term is found as written; a short abbreviation ('MI') still keeps its own key."""
    note = make_note("He reports increasing shortness of breath. A CT of the head was negative. Old MI.")
    terms = (TargetTerm("shortness of breath", "dyspnea", Kind.CONDITION, "query"),
             TargetTerm("CT of the head", "head CT", Kind.PROCEDURE, "query"),
             TargetTerm("MI", "myocardial infarction", Kind.CONDITION, "lexicon"))
    found = {o.concept.text for o in pipeline.mentions([note], terms)}
    assert found == {"dyspnea", "head CT", "myocardial infarction"}


def test_terms_with_short_function_words_are_found_in_capitals(pipeline):
    """Reports dictated in capitals write the term's function words in capitals too."""
    note = make_note("PULMONARY - NO SHORTNESS OF BREATH. CT OF THE HEAD WAS UNREMARKABLE.")
    terms = (TargetTerm("shortness of breath", "dyspnea", Kind.CONDITION, "query"),
             TargetTerm("CT of the head", "head CT", Kind.PROCEDURE, "query"))
    found = {o.concept.text: o.assertion.negated for o in pipeline.mentions([note], terms)}
    assert found == {"dyspnea": True, "head CT": False}
