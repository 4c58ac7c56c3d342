"""A note's layout as a reader of its timeline sees it: sections with a role, sentences with tense.

Pure functions of the note text (regular expressions and the heading titles of
resources/section_rules.json), so the evidence contract can re-derive every placement from the
text alone: no spaCy state, no model. The note pipeline's sectionizer decides ConText flags; this
reader decides only what the order of telling says.

Three placements are read here (resources/narrative_rules.json says which words do what):

- **told in order**: in a narrative section (history of present illness, hospital course,
  emergency department course, a procedure's description), an event told in a later sentence
  happened after one told in an earlier sentence, when both sentences tell past events, the later
  one does not step back in time (a past perfect "had been", "prior to this", "previously"), and
  no sentence after the earlier one states a time of its own (which then decides instead).
  Within one sentence, the same holds of two main clauses it joins ("a catheterization was done
  and two stents were placed"), each with a finite past verb of its own.
  A weaker basis than a cue: it supports an order, it never refutes one.
- **phases of the story**: an event placed in the patient's past (a past history section,
  "history of", "status post", "previous") happened before one the note tells as part of the
  present episode; the presentation (chief complaint, history of present illness, preoperative
  diagnosis) before the operation and the stay; "preoperatively" before the operation,
  "postoperatively" after it. Also support only.
- **counted times**: two mentions each told with a time counted on one scale of the stay, the
  operation or a life ("on hospital day 2", "POD #3", "day of life 5", "this afternoon"): the lower
  count first, whichever is told first, with no admission date needed. Also support only.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass
from functools import cache, lru_cache

from medeventgraph.model.packaged import packaged_built

from .rules import load_section_specs
from .sentences import CAPS_HEADING

__all__ = [
    "COUNTED_TIMES",
    "EARLIER_SECTION",
    "HISTORY_FIRST",
    "PAST_BEFORE_PRESENT",
    "PHASE_CUE",
    "PLACEMENT_RULES",
    "TOLD_IN_ORDER",
    "NoteLayout",
    "Placement",
    "Section",
    "Sentence",
    "counted_order",
    "lead_cue",
    "note_layout",
    "phase_order",
    "told_order",
    "turns_back",
]


@dataclass(frozen=True, slots=True)
class _EpisodeTime:
    kind: str  # what it counts: "hospital day", "postoperative day", "day of life", "hour" ...
    pattern: re.Pattern[str]  # groups: n (a count, unit), h/m/half or h24/m24 (an hour), part/night
    recent: bool  # a time just before the note ("this morning"), read as recent_time is
    paired: bool  # weighs only against the same kind at the other end ("on admission" ... "at discharge")
    wraps: bool  # the count starts again each day (an hour): it orders only what is told in order


@dataclass(frozen=True, slots=True)
class _NarrativeRules:
    narrative_roles: frozenset[str]  # sections whose sentences tell events in the order they happened
    history_roles: frozenset[str]  # sections that hold the patient's past
    past: re.Pattern[str]  # a sentence that tells past events
    turns_back: re.Pattern[str]  # a sentence that steps back in time from the one before it
    states_time: re.Pattern[str]  # a sentence that states a date, a year, "3 weeks ago" (then the time decides)
    recent_time: re.Pattern[str]  # a sentence that states a time just before the note ("last night")
    episode_time: tuple[_EpisodeTime, ...]  # times counted within the stay, the day or a life ("POD #3", "at 0600")
    history_cue: re.Pattern[str]  # words before a mention that place it in the patient's past
    history_reach: int  # characters before a mention a history cue may stand
    phases: dict[str, float]  # section role -> its phase in the note's story (0: the past)
    after_history_roles: frozenset[str]  # present-state sections: after the past, unordered against the rest
    past_time: re.Pattern[str]  # a time stated in a sentence that puts what it tells in the patient's past
    stay_roles: frozenset[str]  # sections telling the stay: a date there may be the stay's own
    diagnosis_roles: frozenset[str]  # lists of diagnoses: what they name is a state (a procedure there: its result)
    phase_cues: tuple[tuple[float, re.Pattern[str]], ...]  # words in a sentence that set its phase
    state_after: re.Pattern[str]  # words right after a mention telling how its state went on ("has improved")
    state_before: re.Pattern[str]  # words right before a mention telling the same ("persistent")
    subheadings: frozenset[str]  # titles that continue the section they stand in ("HEENT:")
    title_words: tuple[tuple[re.Pattern[str], str], ...]  # words that name the role of another title
    presentation: re.Pattern[str]  # words telling the presentation ("was admitted"), which an HPI steps back from
    clause_join: re.Pattern[str]  # words joining two clauses of one sentence (", and", ";")
    finite_past: re.Pattern[str]  # a clause's own finite past verb ("was", "underwent", "she noted")
    subordinate: re.Pattern[str]  # words opening a clause that is not told in its place ("before", "which")
    purpose_lead: re.Pattern[str]  # words right before an act that make it a purpose ("for"): cue group "cue"
    time_bound: re.Pattern[str]  # words right before a counted time that make it a bound ("by hospital day 3")
    present_act: re.Pattern[str]  # an act told in the historical present ("she undergoes", "is started on")
    present_presentation: re.Pattern[str]  # the presentation told in the present ("she presents with")
    not_a_step: re.Pattern[str]  # words that make a present verb no step of a story: a habit, a condition, a plan


# Words that open another clause: a history cue does not reach a mention past them ("status post
# stenting and was admitted with chest pain": the chest pain is not history).
_CLAUSE_BREAK = r"\b(?:and|but|with|who|which|was|were|is|are|for|presented|presents|admitted)\b"


@cache
def _load_narrative_rules() -> _NarrativeRules:
    return packaged_built("medeventgraph.nlp", "narrative_rules.json", _narrative_rules)


def _words(raw: dict, key: str) -> re.Pattern[str]:
    return re.compile("|".join(f"(?:{p})" for p in raw[key]), re.IGNORECASE)


def _narrative_rules(raw: dict) -> _NarrativeRules:
    known = {s.category for s in load_section_specs()}
    roles = {key: frozenset(str(r) for r in raw[key])
             for key in ("narrative_roles", "history_roles", "after_history_roles", "stay_roles", "diagnosis_roles")}
    phases = {str(k): float(v) for k, v in raw["phases"].items()}
    named = {str(w["role"]) for w in raw["title_words"]}
    unknown = sorted(r for v in (*roles.values(), phases, named) for r in v if r not in known)
    if unknown:
        raise ValueError(f"unknown section roles {unknown}")
    cues = tuple((float(c["phase"]), re.compile("|".join(f"(?:{p})" for p in c["words"]), re.IGNORECASE))
                 for c in raw["phase_cues"])
    return _NarrativeRules(roles["narrative_roles"], roles["history_roles"],
                          _words(raw, "past"), _words(raw, "turns_back"), _words(raw, "states_time"),
                          _words(raw, "recent_time"),
                          tuple(_EpisodeTime(str(e["kind"]), re.compile(e["pattern"], re.IGNORECASE), bool(e.get("recent")),
                                              bool(e.get("paired")), bool(e.get("wraps")))
                                for e in raw["episode_time"]),
                          _history_cue(raw["history_cue"], int(raw["history_words_between"])),
                          int(raw["history_reach"]), phases, roles["after_history_roles"],
                          _words(raw, "past_time"), roles["stay_roles"], roles["diagnosis_roles"], cues, _words(raw, "state_after"),
                          _words(raw, "state_before"),
                          frozenset(" ".join(str(t).lower().split()) for t in raw["subheadings"]),
                          tuple((re.compile(str(w["words"]), re.IGNORECASE), str(w["role"])) for w in raw["title_words"]),
                          _words(raw, "presentation"), _words(raw, "clause_join"), _words(raw, "finite_past"),
                          _words(raw, "subordinate"), re.compile(raw["purpose_lead"], re.IGNORECASE),
                          re.compile(raw["time_bound"], re.IGNORECASE), _words(raw, "present_act"),
                          _words(raw, "present_presentation"), _words(raw, "not_a_step"))


def _history_cue(words: list[str], between: int) -> re.Pattern[str]:
    """A history cue, then at most `between` words of the mention's own phrase (no clause break)."""
    word = rf"(?:(?!{_CLAUSE_BREAK})[\w/'-]+)"
    return re.compile(rf"\b(?P<cue>{'|'.join(words)})\b(?:\s+{word}){{0,{between}}}\s*$", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Section:
    role: str | None  # a section_rules.json category, or None for a heading it does not know
    title_start: int
    title_end: int  # the title's words, without the ':' that ends them
    body_start: int
    end: int

    def title(self, text: str) -> str:
        return text[self.title_start:self.title_end]


@dataclass(frozen=True, slots=True)
class Sentence:
    start: int
    end: int
    section: int  # index into NoteLayout.sections; -1 before the first heading


@dataclass(frozen=True, slots=True)
class NoteLayout:
    text_length: int
    sections: tuple[Section, ...]
    sentences: tuple[Sentence, ...]

    def sentence_at(self, offset: int) -> int | None:
        """Index of the sentence holding character `offset`."""
        starts = [s.start for s in self.sentences]
        i = bisect_right(starts, offset) - 1
        if i >= 0 and offset < self.sentences[i].end:
            return i
        return None

    def role(self, sentence: int) -> str | None:
        index = self.sentences[sentence].section
        return self.sections[index].role if index >= 0 else None


# A heading: a title in capitals ending in ':' at a line start or run in after punctuation or a run of
# spaces (flattened dictation: "... emergency room.,PAST MEDICAL HISTORY: , Asthma."); a known title in
# capitals without its colon, run in before a capital or a numbered list ("ADMITTING DIAGNOSES,1. ...")
# or alone on its line; a markdown heading ("# Plan"); or any title ending in ':' alone at a line start.
_HEADING = re.compile(
    CAPS_HEADING
    + r"|(?:(?<=^)|(?<=\n)|(?<=[,.]))\s*(?P<tc>[A-Z][A-Z /&'\-]{2,60}[A-Z]),(?=\s*(?:[A-Z]|\d{1,2}[.)]\s))"
    r"|(?m:^[ \t]*#+[ \t]*(?P<md>[^\n#:]{2,60}?)[ \t]*:?[ \t]*$)"
    r"|(?m:^[ \t]*(?P<line>[A-Za-z][A-Za-z /&'\-]{1,50}):)"
    r"|(?m:^[ \t]*(?P<bare>[A-Z][A-Z /&'\-]{2,60}[A-Z])[ \t]*$)",
)
# A sentence ends at . ! ? followed by white space, a comma (flattened line breaks) or the end,
# except after a title or abbreviation that takes a dot.
_END = re.compile(r"[.!?](?=[\s,]|$)")
_NO_END = re.compile(r"\b(?:dr|mr|mrs|ms|st|vs|no|approx|e\.g|i\.e|p\.o|b\.i\.d|t\.i\.d|q\.i\.d|a\.m|p\.m|"
                     r"[a-z])$", re.IGNORECASE)
# A time of day or a dosing abbreviation often ends its sentence ("Chest pain began at 2 a.m. He
# was taken ..."): it does when a word that opens a clause follows, in capitals; a title never does.
_CLOSING_ABBREVIATION = re.compile(r"\b(?:a\.m|p\.m|p\.o|b\.i\.d|t\.i\.d|q\.i\.d)$", re.IGNORECASE)
_OPENER = re.compile(r"\s+(?:He|She|They|The|His|Her|Their|It|This|That|We|I|There|Patient|On|At|In|After|"
                     r"Then|Subsequently|Later|Initially)\b")


@cache
def _titles() -> dict[str, str]:
    return {" ".join(t.lower().split()): s.category for s in load_section_specs() for t in s.titles}


def _role(title: str) -> str | None:
    """A title's section role: a title section_rules.json names, else one whose words name it
    ("HISTORY OF PRESENT COMPLAINT", "LABORATORY AT DISCHARGE")."""
    words = " ".join(re.sub(r"[^a-z0-9/&' ]", " ", title.lower()).split())
    known = _titles().get(words)
    if known is not None:
        return known
    return next((role for pattern, role in _load_narrative_rules().title_words if pattern.search(words)), None)


@lru_cache(maxsize=64)
def note_layout(text: str) -> NoteLayout:
    """Sections and sentences of a note text (cached: a note is read once for all its pairs)."""
    heads: list[tuple[int, int, int, str | None]] = []
    for m in _HEADING.finditer(text):
        group = next(g for g in ("t", "tc", "md", "line", "bare") if m.group(g))
        title = m.group(group)
        role = _role(title)
        if group in ("line", "tc", "bare") and role is None:
            continue  # "Note: ..." at a line start, "BUN, ..." in a list: a heading only if it names a section
        if role is None and " ".join(title.lower().split()) in _load_narrative_rules().subheadings:
            continue  # "HEENT:" in an examination: the examination goes on
        if role is None and heads and heads[-1][3] in _load_narrative_rules().narrative_roles:
            role = heads[-1][3]  # a problem's own heading in a narrative ("HYPOGLYCEMIA:"): its own story
        heads.append((m.start(group), m.end(group), m.end(), role))
    sections = tuple(Section(role, s, e, body, heads[i + 1][0] if i + 1 < len(heads) else len(text))
                     for i, (s, e, body, role) in enumerate(heads))
    sentences: list[Sentence] = []
    bounds = [(-1, 0, heads[0][0] if heads else len(text))] + [(i, h.body_start, h.end)
                                                                 for i, h in enumerate(sections)]
    for index, lo, hi in bounds:
        start = lo
        for m in _END.finditer(text, lo, hi):
            before = text[max(lo, m.start() - 6):m.start()]
            if _NO_END.search(before) and not (_CLOSING_ABBREVIATION.search(before)
                                               and _OPENER.match(text, m.end(), hi)):
                continue
            _add(sentences, text, start, m.end(), index)
            start = m.end()
        _add(sentences, text, start, hi, index)
    return NoteLayout(len(text), sections, tuple(sentences))


def _add(out: list[Sentence], text: str, start: int, end: int, section: int) -> None:
    while start < end and text[start] in " \t\r\n,":
        start += 1
    while end > start and text[end - 1] in " \t\r\n,":
        end -= 1
    if any(ch.isalnum() for ch in text[start:end]):
        out.append(Sentence(start, end, section))


TOLD_IN_ORDER = "told-in-order"
HISTORY_FIRST = "history-before-episode"
EARLIER_SECTION = "earlier-section"  # the earlier mention's section tells an earlier part of the story
PHASE_CUE = "phase-cue"  # words place the earlier mention ("preoperatively") before the other's part
PAST_BEFORE_PRESENT = "past-before-present"  # the patient's past before what a present-state section names
COUNTED_TIMES = "counted-times"  # each mention's sentence counts one scale of the stay ("hospital day 2" ... "4")
PLACEMENT_RULES = (TOLD_IN_ORDER, HISTORY_FIRST, EARLIER_SECTION, PHASE_CUE, PAST_BEFORE_PRESENT, COUNTED_TIMES)


@dataclass(frozen=True, slots=True)
class Placement:
    """`earlier` happened before `later` by where the note places them; the cue is the section
    heading that makes the telling a narrative, or the words that put `earlier` in the past."""

    earlier: tuple[int, int]
    later: tuple[int, int]
    cue_start: int
    cue_end: int
    rule: str  # one of PLACEMENT_RULES


def told_order(text: str, a: tuple[int, int], b: tuple[int, int]) -> Placement | None:
    """The order in which a narrative section tells the mentions at spans `a` and `b`, or None
    where the telling says nothing (one clause, different sections, a section that is not a
    narrative, a sentence that is not in the past, or a step back in time between them)."""
    layout, rules = note_layout(text), _load_narrative_rules()
    ia, ib = layout.sentence_at(a[0]), layout.sentence_at(b[0])
    if ia is None or ib is None:
        return None
    (i, first), (j, second) = sorted(((ia, a), (ib, b)))
    section = layout.sentences[i].section
    if section < 0 or layout.sentences[j].section != section or layout.role(i) not in rules.narrative_roles:
        return None
    if i == j:
        told = _own_clauses(text, rules, layout.sentences[i], first, second)
        if told is None:
            return None
    else:
        told = [text[s.start:s.end] for s in layout.sentences[i:j + 1]]
    first_past = bool(rules.past.search(told[0]))
    if not (first_past and rules.past.search(told[-1])) and not _present_steps(rules, told[0], told[-1], first_past):
        return None
    if rules.turns_back.search(told[-1]) or _goes_on(text, rules, second):
        return None  # the later event is told as having come first, or as a state that went on from before
    first_at, last_at = _episode_times(told[0]), _episode_times(told[-1])
    alone, stating, _ = _episode_kinds()
    timed = [bool(rules.states_time.search(t) or rules.recent_time.search(t) or alone & at.keys())
             for t, at in ((told[0], first_at), (told[-1], last_at))]
    stated = (rules.states_time.search(told[-1]) or stating & last_at.keys()
              or (rules.recent_time.search(told[-1]) and rules.presentation.search(told[0])))
    if stated and not timed[0]:
        return None  # the later event states its own time: that decides, the telling does not (a time
        # just before the note, "yesterday", follows what was told before it, unless that was the
        # presentation itself, which an HPI tells first and then steps back from)
    if (timed[0] or first_at) and (timed[-1] or last_at) and _weighed(first_at, last_at) \
            and not _counts_on(first_at, last_at):
        return None  # a day of the stay, an hour or a part of today at one end: unless the other end
        # counts the same way and no less ("hospital day 2" ... "hospital day 4"), the times decide,
        # and where they cannot (no admission date) the telling, which may go back, does not
    if any(_opens_with_time(rules, t) for t in told[1:-1]) and not (timed[0] and timed[-1]):
        return None  # a time that opens a sentence on the way ("In 2015, ...") may set the frame of what
        # follows; one inside a sentence ("the last panel on 12/5/2003 showed ...") dates its own clause.
        # Where both ends state their times, the times decide and the telling only orders what they leave open
    heading = layout.sections[section]
    return Placement(first, second, heading.title_start, heading.title_end, TOLD_IN_ORDER)


def _present_steps(rules: _NarrativeRules, first: str, last: str, first_past: bool) -> bool:
    """Is the later of two sentences (or clauses) an act told in the historical present after an act,
    a presentation or a past event ("She presents with a rash. She is started on prednisone")? Not a
    presentation told later (what one presents with may have begun before what was told first), a
    habit, a condition or a plan ("undergoes dialysis three times a week", "if she develops a fever",
    "as he is intubated"), or a past told after the present (it may go back)."""
    if not rules.present_act.search(last) or rules.not_a_step.search(last) or rules.not_a_step.search(first):
        return False
    return first_past or bool(rules.present_act.search(first) or rules.present_presentation.search(first))


def _own_clauses(text: str, rules: _NarrativeRules, sentence: Sentence, first: tuple[int, int],
                 second: tuple[int, int]) -> list[str] | None:
    """The two clauses of one sentence that hold `first` and `second` (in text order), when each is
    a main clause with a finite past verb of its own ("a catheterization was done and two stents
    were placed"); None when both stand in one clause, or the later one's verb is the earlier one's
    ("was given X and Y")."""
    spans = _own_clause_spans(text, rules, sentence, first, second)
    return None if spans is None else [text[s:e] for s, e in spans]


def _own_clause_spans(text: str, rules: _NarrativeRules, sentence: Sentence, first: tuple[int, int],
                      second: tuple[int, int]) -> list[tuple[int, int]] | None:
    start = sentence.start
    cuts = [start, *(start + m.end() for m in rules.clause_join.finditer(text[start:sentence.end])), sentence.end]
    ca, cb = bisect_right(cuts, first[0]) - 1, bisect_right(cuts, second[0]) - 1
    if ca == cb or bisect_right(cuts, first[1] - 1) - 1 != ca or bisect_right(cuts, second[1] - 1) - 1 != cb:
        return None
    spans = [(cuts[k], cuts[k + 1]) for k in (ca, cb)]
    if not all((rules.finite_past.search(text[s:e]) or rules.present_act.search(text[s:e])
                or rules.present_presentation.search(text[s:e]))
               and not rules.subordinate.search(text[s:e]) for s, e in spans):
        return None
    return spans


_STATE_REACH = 40  # characters around a mention where words tell how its state went on


def _goes_on(text: str, rules: _NarrativeRules, span: tuple[int, int]) -> bool:
    """Is the mention told as a state that went on ("his weakness has much improved", "persistent
    fever") rather than as an event that began?"""
    before, after = text[max(0, span[0] - _STATE_REACH):span[0]], text[span[1]:span[1] + _STATE_REACH]
    return bool(rules.state_before.search(before) or rules.state_after.search(after))


_COUNTS = {w: i + 1 for i, w in enumerate(("one", "two", "three", "four", "five", "six", "seven", "eight",
                                             "nine", "ten"))}
_ORDINALS = {w: i + 1 for i, w in enumerate(("first", "second", "third", "fourth", "fifth", "sixth", "seventh",
                                             "eighth", "ninth", "tenth"))}
_DAYS_IN = {"day": 1, "week": 7, "month": 30}
_PARTS_OF_DAY = {"morning": 0, "afternoon": 1, "evening": 2, "night": 3}


def _episode_times(sentence: str) -> dict[str, tuple[int | None, ...]]:
    """The times within the stay, the day or a life that a sentence states, by what they count
    (resources/narrative_rules.json episode_time), each as a number on that scale: the day of the
    stay, of the operation or of life, the age in days, minutes after midnight, the part of today,
    the end of the stay (admission 0, discharge 1); None where the words give no number
    ("preoperatively")."""
    marks = _episode_marks(sentence, 0, len(sentence))
    return {kind: tuple(value for value, _, _ in found) for kind, found in marks.items()}


def _episode_marks(text: str, start: int, end: int) -> dict[str, list[tuple[int | None, int, int]]]:
    """The episode times stated in text[start:end], by kind: each one's count and its span."""
    found: dict[str, list[tuple[int | None, int, int]]] = {}
    for rule in _load_narrative_rules().episode_time:
        for m in rule.pattern.finditer(text[start:end]):
            found.setdefault(rule.kind, []).append((_count(m), start + m.start(), start + m.end()))
    return found


def counted_order(text: str, a: tuple[int, int], b: tuple[int, int]) -> Placement | None:
    """The two mentions each told with a time counted on one scale of the stay, the operation or a
    life ("vancomycin on hospital day 2" ... "a rash on hospital day 4", "POD #1" ... "POD #3",
    "this morning" ... "this afternoon"), in two sentences or two main clauses of one: the lower
    count first, whichever is told first and with no admission date to count from. Not when a count
    is a bound ("by hospital day 3"), a sentence states another time of its own (a date, "ago"), the
    later mention is told as a state that went on or its sentence steps back ("had resolved"), a
    count starts again each day (an hour: "at 0600" may be the next morning's), or either stands in
    a past history (another stay's days). The cue is the earlier mention's time."""
    layout, rules = note_layout(text), _load_narrative_rules()
    ia, ib = layout.sentence_at(a[0]), layout.sentence_at(b[0])
    if ia is None or ib is None or any(layout.role(i) in rules.history_roles for i in (ia, ib)):
        return None
    if ia == ib:
        first, second = sorted((a, b))
        clauses = _own_clause_spans(text, rules, layout.sentences[ia], first, second)
        if clauses is None:
            return None
        units = dict(zip((first, second), clauses))
    else:
        units = {span: (layout.sentences[i].start, layout.sentences[i].end) for span, i in ((a, ia), (b, ib))}
    if any(rules.states_time.search(text[s:e]) for s, e in units.values()):
        return None
    marks = {span: _episode_marks(text, *units[span]) for span in (a, b)}
    for kind in dict.fromkeys(r.kind for r in rules.episode_time if not (r.wraps or r.paired)):
        if kind not in marks[a] or kind not in marks[b]:
            continue
        ca, cb = _one_count(text, rules, marks[a][kind]), _one_count(text, rules, marks[b][kind])
        if ca is None or cb is None or ca[0] == cb[0]:
            continue
        (_, cue, earlier), (_, _, later) = sorted(((*ca, a), (*cb, b)))
        said = text[units[later][0]:units[later][1]]
        if rules.turns_back.search(said) or _goes_on(text, rules, later):
            return None
        return Placement(earlier, later, cue[0], cue[1], COUNTED_TIMES)
    return None


def _one_count(text: str, rules: _NarrativeRules, found: list[tuple[int | None, int, int]]
               ) -> tuple[int, tuple[int, int]] | None:
    """The one count a unit states on a scale (and the span of its first statement), or None when it
    states none, several, or one as a bound ("by", "until", "after")."""
    values = {value for value, _, _ in found}
    if len(values) != 1 or None in values:
        return None
    if any(rules.time_bound.search(text[max(0, start - _BOUND_REACH):start]) for _, start, _ in found):
        return None
    value, start, end = found[0]
    assert value is not None
    return value, (start, end)


_BOUND_REACH = 24  # characters before a counted time where words make it a bound


@cache
def _episode_kinds() -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
    """The kinds of episode time that date a sentence on their own (not paired), that state a time
    of its own at the later end (neither recent nor paired), and that weigh only against their pair."""
    times = _load_narrative_rules().episode_time
    return (frozenset(r.kind for r in times if not r.paired),
            frozenset(r.kind for r in times if not (r.recent or r.paired)),
            frozenset(r.kind for r in times if r.paired))


def _count(m: re.Match[str]) -> int | None:
    said = {k: v.lower() for k, v in m.groupdict().items() if v}
    if "n" in said:
        n = said["n"]
        value = _COUNTS.get(n) or _ORDINALS.get(n) or int(n.rstrip("stndrh"))
        return value * _DAYS_IN[said["unit"].rstrip("s")] if "unit" in said else value
    if "h" in said or "h24" in said:
        hour, minute = int(said.get("h", said.get("h24", "0"))), int(said.get("m", said.get("m24", "0")))
        if "half" in said:
            hour = hour % 12 + (12 if said["half"].startswith("p") else 0)
        return hour * 60 + minute
    if "part" in said or "night" in said:
        return _PARTS_OF_DAY[said.get("part", "night")]
    if said.keys() & {"admitted", "admitted2", "discharged", "discharged2"}:
        return 0 if said.keys() & {"admitted", "admitted2"} else 1
    return None


def _weighed(earlier: dict[str, tuple[int | None, ...]], later: dict[str, tuple[int | None, ...]]) -> bool:
    """Does either end state a time of the stay that weighs here (a paired kind only against its pair)?"""
    paired = _episode_kinds()[2]
    return any(kind not in paired or (kind in earlier and kind in later) for kind in earlier.keys() | later.keys())


def _counts_on(earlier: dict[str, tuple[int | None, ...]], later: dict[str, tuple[int | None, ...]]) -> bool:
    """Do the two sentences count one scale, the later no less than the earlier ("hospital day 2"
    ... "hospital day 4", "at 2 a.m." ... "at 6 a.m.")?"""
    for kind in earlier.keys() & later.keys():
        before = [v for v in earlier[kind] if v is not None]
        after = [v for v in later[kind] if v is not None]
        if len(before) == len(earlier[kind]) and len(after) == len(later[kind]) and min(after) >= max(before):
            return True
    return False


_OPENING_WORDS = 4  # words at the start of a sentence where a time sets the frame of what follows


def _opens_with_time(rules: _NarrativeRules, sentence: str) -> bool:
    """Does a stated time open this sentence ("In 2015, she ...", "Three days later ...")?"""
    m = rules.states_time.search(sentence)
    return m is not None and len(sentence[:m.start()].split()) < _OPENING_WORDS


def phase_order(text: str, a: tuple[int, int], b: tuple[int, int]) -> Placement | None:
    """The two mentions in different phases of the note's story, the earlier phase first: the
    patient's past (a past-history section, "history of", "status post" before the mention), the
    presentation (chief complaint, history of present illness, preoperative diagnosis), what was
    done before an operation ("preoperatively"), the operation and the stay (its sections), and
    what came after it ("postoperatively"). Where a mention's sentence steps back in time or
    states a time of its own, its section does not place it."""
    layout, rules = note_layout(text), _load_narrative_rules()
    pa, pb = _phase(text, layout, rules, a), _phase(text, layout, rules, b)
    if pa is None or pb is None or pa[0] == pb[0]:
        return None
    if pa[0] is None or pb[0] is None:  # a present-state section: after the past, and only the past
        (rank, cue, _, earlier), (_, _, dated, later) = ((*pa, a), (*pb, b)) if pb[0] is None else ((*pb, b), (*pa, a))
        if rank != 0 or dated:
            return None
        return Placement(earlier, later, cue[0], cue[1], PAST_BEFORE_PRESENT)
    (rank, cue, _, earlier), (_, _, dated, later) = sorted(((*pa, a), (*pb, b)))
    if rank == 0 and dated:
        return None  # a presentation told with a time of its own, or as past: the history may be later
    by_heading = any(cue == (h.title_start, h.title_end) for h in layout.sections)
    rule = HISTORY_FIRST if rank == 0 else EARLIER_SECTION if by_heading else PHASE_CUE
    later_sentence = layout.sentence_at(later[0])
    if rank == 0 and later_sentence is not None and layout.role(later_sentence) in rules.diagnosis_roles:
        rule = PAST_BEFORE_PRESENT  # a list of diagnoses names states: the contract weighs what it names
    return Placement(earlier, later, cue[0], cue[1], rule)


def turns_back(sentence: str) -> bool:
    """Does the sentence step back in time ("previously", "had been", "prior to this")?"""
    return bool(_load_narrative_rules().turns_back.search(sentence))


def names_purpose(text: str, span: tuple[int, int]) -> bool:
    """Is the act at `span` named as a purpose ("venogram for left ventricular lead placement",
    "admitted for a cholecystectomy")? Such an act is done or planned after the words naming it, so
    where it is told places it before nothing."""
    layout, rules = note_layout(text), _load_narrative_rules()
    return lead_cue(text, layout, span, rules.purpose_lead, rules.history_reach) is not None


def lead_cue(text: str, layout: NoteLayout, span: tuple[int, int], cue: re.Pattern[str], reach: int
             ) -> tuple[int, int] | None:
    """The span of the words `cue` matches (group "cue") right before the mention at `span`, at most
    `reach` characters back and within its sentence, or None."""
    index = layout.sentence_at(span[0])
    if index is None:
        return None
    lead = text[max(layout.sentences[index].start, span[0] - reach):span[0]]
    m = cue.search(lead)
    if m is None:
        return None
    offset = span[0] - len(lead)
    return offset + m.start("cue"), offset + m.end("cue")


def _phase(text: str, layout: NoteLayout, rules: _NarrativeRules, span: tuple[int, int]
           ) -> tuple[float | None, tuple[int, int], bool] | None:
    """The mention's phase, the words that place it there (a cue, or its section's title), and
    whether its sentence states a time of its own or steps back in time. Phase None: a
    present-state section (an assessment), which comes after the past and is not ordered
    against the rest of the story."""
    index = layout.sentence_at(span[0])
    if index is None:
        return None
    sentence = layout.sentences[index]
    said = text[sentence.start:sentence.end]
    dated = bool(rules.turns_back.search(said) or rules.states_time.search(said) or rules.recent_time.search(said))
    history = lead_cue(text, layout, span, rules.history_cue, rules.history_reach)
    if history is not None:
        return 0.0, history, dated
    role = layout.role(index)
    heading = layout.sections[sentence.section] if sentence.section >= 0 else None
    if role in rules.history_roles and heading is not None:
        return 0.0, (heading.title_start, heading.title_end), dated
    m = rules.past_time.search(said) if role not in rules.stay_roles else None
    if m is not None:
        return 0.0, (sentence.start + m.start(), sentence.start + m.end()), dated
    for rank, cue in rules.phase_cues:
        m = cue.search(said)
        if m is not None:
            return rank, (sentence.start + m.start(), sentence.start + m.end()), dated
    if heading is None:
        return None
    if role in rules.phases:
        return rules.phases[role], (heading.title_start, heading.title_end), dated
    if role in rules.after_history_roles:
        return None, (heading.title_start, heading.title_end), dated
    return None
