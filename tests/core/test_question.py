import pytest
from medeventgraph.core.query.question import QuestionParseError, parse_question


def _shape(text):
    q = parse_question(text)
    return [(e.text, e.kind) for e in q.events], [(r.source, r.type.value, r.target, r.within) for r in q.relations], q.scope.value


def test_after_within_encounter():
    events, rels, scope = _shape("Was AKI documented after vancomycin within one encounter?")
    assert events == [("aki", "condition"), ("vancomycin", "medication")]
    assert rels == [("e0", "after", "e1", None)] and scope == "encounter"


def test_before_and_kinds():
    events, rels, scope = _shape("Did the patient receive heparin before the MI?")
    assert events == [("heparin", "medication"), ("mi", "condition")] and rels[0][1] == "before" and scope == "patient"


def test_within_one_hour_of():
    events, rels, _ = _shape("Was the antibiotic given within 1 hour of the lactate?")
    assert events[0] == ("antibiotic", "medication") and events[1][0] == "lactate"
    assert rels == [("e0", "after", "e1", "PT1H")]


def test_then_chain_and_same_admission():
    events, rels, scope = _shape("aspirin then clopidogrel then heparin within the same admission")
    assert [e for e, _ in events] == ["aspirin", "clopidogrel", "heparin"]
    assert [r[1] for r in rels] == ["before", "before"] and scope == "encounter"


def test_within_hours_after_and_during():
    _, rels, _ = _shape("Did AKI happen within 48 hours after vancomycin?")
    assert rels == [("e0", "after", "e1", "PT48H")]
    _, rels, _ = _shape("Was vancomycin given during sepsis?")
    assert rels[0][1] == "overlaps"


@pytest.mark.parametrize("text", ["what is the weather", "Was sepsis?", "", "before after", "?"])
def test_refuses_what_it_cannot_parse(text):
    with pytest.raises(QuestionParseError):
        parse_question(text)


def _actions(text, **kw):
    from medeventgraph.core.query.question import parse_question_noted

    q, notes = parse_question_noted(text, **kw)
    return [(e.text, e.kind, e.action) for e in q.events], notes


@pytest.mark.parametrize(("text", "first"), [
    ("Was the antibiotic given within 1 hour of the lactate?", ("antibiotic", "medication", "administered")),
    ("Did the patient receive heparin before the MI?", ("heparin", "medication", "administered")),
    ("Was vancomycin infused before the AKI?", ("vancomycin", "medication", "administered")),
    ("Was vancomycin administered before the AKI?", ("vancomycin", "medication", "administered")),
    ("Was metformin prescribed after prediabetes?", ("metformin", "medication", "ordered")),
    ("Was vancomycin ordered before the creatinine?", ("vancomycin", "medication", "ordered")),
    ("Was amoxicillin filled after the otitis media?", ("amoxicillin", "medication", "dispensed")),
    ("Was amoxicillin dispensed after the otitis media?", ("amoxicillin", "medication", "dispensed")),
    ("Was the blood culture ordered before the antibiotic?", ("blood culture", "procedure", "ordered")),
    ("Was AKI documented after vancomycin?", ("aki", "condition", None)),
])
def test_action_words(text, first):
    events, notes = _actions(text)
    assert events[0] == first and not notes


@pytest.mark.parametrize("words", ["resulted", "was reported", "came back"])
def test_result_words(words):
    events, _ = _actions(f"Was the antibiotic given before the lactate {words}?")
    assert events == [("antibiotic", "medication", "administered"), ("lactate", "lab", "resulted")]


def test_started_on_depends_on_the_record():
    text = "Was the patient started on vancomycin before the AKI?"
    events, notes = _actions(text, administrations=True)
    assert events[0] == ("vancomycin", "medication", "administered") and "administered" in notes["e0"]
    for known in (False, None):
        events, notes = _actions(text, administrations=known)
        assert events[0] == ("vancomycin", "medication", None) and "any" in notes["e0"]
