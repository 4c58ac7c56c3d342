"""One text in two resources (a DiagnosticReport's presentedForm repeating its DocumentReference,
as Synthea and many EHRs send it): its terms are matched and asserted once per read, and each
document still gets exactly the mentions it would get read alone."""

from __future__ import annotations

from datetime import timedelta

from medeventgraph.nlp import NotePipeline

from .conftest import AKI_TERMS, NOTE_DATE, make_note

TEXT = ("Started vancomycin on admission for pneumonia. Two days later creatinine rose and she "
        "developed acute kidney injury. No AKI before the vancomycin.")


def _without_document(mentions, reference):
    return [(o.source.start, o.source.end, o.concept.text, o.assertion, o.time) for o in mentions
            if o.reference == reference]


def test_a_repeated_text_is_matched_once_and_read_as_each_document_alone(pipeline, monkeypatch):
    doc = make_note(TEXT, "shared-1")
    report = make_note(TEXT, "shared-2", resource_type="DiagnosticReport", date=NOTE_DATE + timedelta(hours=2))
    alone = {d.reference: pipeline.mentions([d], AKI_TERMS) for d in (doc, report)}
    calls = []
    original = NotePipeline._matched
    monkeypatch.setattr(NotePipeline, "_matched", staticmethod(lambda p, m: calls.append(1) or original(p, m)))
    together = pipeline.mentions([doc, report], AKI_TERMS)
    assert len(calls) == 1  # one processed note, one matching
    for d in (doc, report):
        assert _without_document(together, d.reference) == _without_document(alone[d.reference], d.reference)
    assert {o.reference for o in together} == {doc.reference, report.reference}
    other = make_note(TEXT.replace("pneumonia", "cellulitis"), "shared-3")
    calls.clear()
    pipeline.mentions([doc, other], AKI_TERMS)
    assert len(calls) == 2  # different texts are matched each on their own


def test_a_repeated_text_under_the_same_anchors_is_timed_once_and_under_others_apart(pipeline, monkeypatch):
    """Its sentences' times are shared by the documents that give it the same anchors (same date,
    no encounter), and read apart for a document dated otherwise: each as read alone."""
    import medeventgraph.nlp.pipeline as pipeline_module

    dated = "Acute kidney injury was seen 2 days ago. " + TEXT
    doc = make_note(dated, "timed-1")
    report = make_note(dated, "timed-2", resource_type="DiagnosticReport")
    later = make_note(dated, "timed-3", resource_type="DiagnosticReport", date=NOTE_DATE + timedelta(days=3))
    alone = {d.reference: pipeline.mentions([d], AKI_TERMS) for d in (doc, report, later)}
    built = []
    original = pipeline_module.SentenceTimes
    monkeypatch.setattr(pipeline_module, "SentenceTimes", lambda *a: built.append(1) or original(*a))
    together = pipeline.mentions([doc, report, later], AKI_TERMS)
    assert len(built) == 2  # one for the two documents of the same date, one for the later one
    for d in (doc, report, later):
        assert _without_document(together, d.reference) == _without_document(alone[d.reference], d.reference)
    assert _without_document(together, later.reference) != _without_document(together, doc.reference)
