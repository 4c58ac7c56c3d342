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
