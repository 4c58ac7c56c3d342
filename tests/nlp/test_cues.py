"""ConText cues matched in one pass (nlp/cues.py) give exactly medspaCy's matches; the per-note
time reader parses each sentence once and skips Duckling where no time word is written."""

from __future__ import annotations

import csv
from datetime import UTC, datetime
from pathlib import Path

import pytest
from medeventgraph.nlp import TargetTerm
from medeventgraph.nlp.context import _default_rules
from medeventgraph.nlp.cues import CueMatcher, word_sequences
from medeventgraph.nlp.rules import context_rules
from medeventgraph.nlp.temporal import Anchors
from medspacy.common.medspacy_matcher import MedspacyMatcher
from medspacy.context import ConTextRule
from spacy.tokens import Doc

from .conftest import make_note

KIT = Path(__file__).resolve().parents[1] / "data" / "negex-context" / "sentences.tsv"


def kit_sentences() -> list[str]:
    with KIT.open(newline="", encoding="utf-8") as handle:
        reader = csv.reader(handle, delimiter="\t")
        next(reader)
        return [row[2] for row in reader]


def test_word_sequences_expand_alternatives_and_optional_words():
    pattern = [{"LOWER": {"IN": ["may", "might"]}, "OP": "?"}, {"LOWER": "not"}, {"LOWER": {"IN": ["be", "have"]}}]
    assert word_sequences(pattern) == sorted([("may", "not", "be"), ("may", "not", "have"), ("might", "not", "be"),
                                              ("might", "not", "have"), ("not", "be"), ("not", "have")])
    assert word_sequences([{"LIKE_NUM": True}, {"LOWER": "day"}]) is None  # other attributes: token Matcher
    assert word_sequences([{"LOWER": "call"}, {"LOWER": {"NOT_IN": ["."]}, "OP": "{0,3}"}]) is None


def test_a_sentence_initial_cue_matches_as_a_phrase_at_sentence_starts_only(pipeline):
    """'Start heparin.' is an order; 'we will start heparin' is not one (its 'will' is another cue)."""
    from medspacy.context import ConTextRule

    order = ConTextRule("start (order)", "HYPOTHETICAL", pattern=[{"IS_SENT_START": True, "LOWER": {"IN": ["start", "check"]}}])
    assert word_sequences(order.pattern) == [("check",), ("start",)]
    ours = CueMatcher(pipeline.nlp, [order])
    theirs = MedspacyMatcher(pipeline.nlp, name="reference", phrase_matcher_attr="LOWER", prune=False)
    theirs.add([order])
    doc = pipeline.nlp("Start heparin. We will start heparin and check a CBC.\nCheck a CBC.")
    got = [(s, e) for _, s, e in ours(doc)]
    assert [doc[s].text for s, _ in got] == ["Start", "Check"]
    assert got == [(s, e) for _, s, e in theirs(doc)]


def test_cue_matches_are_medspacys(pipeline, synthea_notes):
    """Same (rule, start, end) triples as MedspacyMatcher(prune=False) on real report sentences
    and Synthea notes, with the default and the project's rules."""
    rules = [*_default_rules(), *context_rules()]
    ours = CueMatcher(pipeline.nlp, rules)
    theirs = MedspacyMatcher(pipeline.nlp, name="reference", phrase_matcher_attr="LOWER", prune=False)
    theirs.add(rules)
    texts = kit_sentences() + [t.text for d in synthea_notes[:6] for t in d.texts]
    vocab = pipeline.nlp.vocab
    compared = 0
    for text in texts:
        doc = pipeline.nlp(text)
        got = {(id(ours.rule_map[vocab.strings[k]]), s, e) for k, s, e in ours(doc)}
        want = {(id(theirs.rule_map[vocab.strings[k]]), s, e) for k, s, e in theirs(doc)}
        assert got == want, text[:80]
        compared += len(want)
    assert compared > 50


TOKEN_PATTERN_TEXTS = (
    "3 years ago she had a stroke", "seen in 1998.", "at the age of 40 and at age 12", "for the past 20 years",
    "over 5 - years", "a two-day history of cough; 2 - day history", "1998", "in", "ago", "for 20 years",
    "Diagnosed in 2001, and 10 months earlier, for about 3 decades. History: none.",
    "May 2001: she would, he may, MAY could Might can", "may",
)


def test_token_patterns_matched_near_their_anchors_are_those_matched_everywhere(pipeline, synthea_notes):
    """The token patterns ("3 years ago", "in 1998") run only on stretches around their anchor
    words: the same matches as the whole-doc Matcher, on written texts and on every Synthea note,
    and on the docs without white space that ConText matches on."""
    matcher = pipeline.modifier_finder._matcher
    # the default rules' token patterns all have anchors, the modal cue ("would", not "May") among them:
    # its one element tests LOWER and TEXT, and is anchored on its LOWER words
    assert matcher._windowed and not len(matcher._rest)
    texts = [*TOKEN_PATTERN_TEXTS, *dict.fromkeys(t.text for d in synthea_notes for t in d.texts)]
    found = 0
    for text in texts:
        doc = pipeline.nlp(text)
        words = [t for t in doc if not t.is_space]
        compact = Doc(doc.vocab, words=[t.text for t in words], spaces=[bool(t.whitespace_) for t in words])
        for d in (doc, compact):
            assert matcher._token_matches(d) == set(matcher._tokens(d)), text[:80]
            found += len(matcher._token_matches(d))
    assert found > 20


def test_a_token_pattern_without_an_anchor_is_matched_everywhere(pipeline):
    rules = [ConTextRule("x", "HISTORICAL", pattern=[{"LIKE_NUM": True}, {"TEXT": "-", "OP": "+"}])]
    matcher = CueMatcher(pipeline.nlp, rules)
    assert not matcher._windowed and len(matcher._rest) == 1
    doc = pipeline.nlp.make_doc("2 - - x")
    assert matcher._token_matches(doc) == set(matcher._tokens(doc)) and len(matcher(doc)) == 2


class CountingDuckling:
    """Duckling with a count of the sentences it was asked to parse."""

    def __init__(self, duckling) -> None:
        self._duckling = duckling
        self.parsed: list[str] = []

    def parse(self, text, *args):
        self.parsed.append(text)
        return self._duckling.parse(text, *args)

    def __getattr__(self, name):
        return getattr(self._duckling, name)


@pytest.fixture()
def counting_duckling(pipeline):
    finder = pipeline.time_finder
    original = finder._duckling
    finder._duckling = counting = CountingDuckling(original)
    finder.find_all.cache_clear()
    yield counting
    finder._duckling = original
    finder.find_all.cache_clear()


def test_duckling_reads_only_sentences_with_a_time_word(pipeline, counting_duckling):
    anchors = Anchors(note=datetime(2024, 1, 15, tzinfo=UTC))
    finder = pipeline.time_finder
    assert finder.find("Creatinine 2.3, K 6.1, SBP in the 70s.", anchors) == ()
    assert counting_duckling.parsed == []
    (t,) = finder.find("Creatinine rose to 2.3 two days ago.", anchors)
    assert t.text == "two days ago"
    assert counting_duckling.parsed == ["Creatinine rose to 2.3 two days ago."]


def test_each_sentence_of_a_note_is_timed_once(pipeline):
    """A sentence with many mentions (and the sentences before it) is read once per note, not
    once per mention."""
    text = ("Vancomycin was started on 03/02/2020.\n"
            "On 03/04/2020 creatinine rose; creatinine peaked, creatinine 2.3, creatinine 2.5, AKI.\n")
    terms = [TargetTerm("creatinine", "creatinine", None, "query"), TargetTerm("AKI", "AKI", None, "query")]
    finder = pipeline.time_finder
    read: list[str] = []
    original = finder.find_all

    def counting_find(sentence, *args):
        read.append(sentence)
        return original(sentence, *args)

    finder.find_all = counting_find
    try:
        found = pipeline.mentions([make_note(text, "timed-once")], terms)
    finally:
        finder.find_all = original
    assert len(found) == 5
    assert found[0].time.start is not None and found[0].time.start.date().isoformat() == "2020-03-04"
    assert sorted(read) == sorted(text.strip().splitlines())
