"""Events whose words a clause splits or reorders: "the gallbladder was removed" for "gallbladder
removal", "removal of the melanoma", "clamping the renal hilum", "exacerbation of her COPD",
"transfused 2 units of packed red blood cells", "Meckel's diverticulum, this was resected".

An event text becomes slots, one per content word, each a set of stems (`Stems`): a lemma
(lemminflect) then the Snowball stemmer (NLTK's, the standard English one), with two
derivations it misses ("placement" -> place, "hypoxia"/"hypoxic" -> hypox); a query's word also
takes every form of the verb it names, so irregular ones meet ("fall": fell, fallen). A "-ectomy" word
fills two slots, its organ and its act (resources/phrase_rules.json). A phrase is found where
every slot is filled by a distinct word of one clause of one sentence: no break mark or word
between the first and last, at most `max_extra` other content words among them. Word order is
free. What was matched is kept as pieces (character spans of the filling words) so the binding
can be re-checked from the note text alone (`check_phrase`), never from how it was found.

A word of manner or approach ("laparoscopic") may be left out where the whole phrase is found
nowhere in the note: the match then records the words it left out (`dropped`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache, lru_cache
from typing import Any

from medeventgraph.model.packaged import packaged_built

from .wordforms import WordForms

__all__ = ["NamedSlots", "PhraseFind", "PhraseRules", "PhraseSlots", "Stems", "check_phrase", "find_phrases",
           "load_phrase_rules", "named_at", "named_splits", "phrase_slots", "shared_stems"]

_WORD = re.compile(r"[A-Za-z]+|\d+(?:[.,]\d+)*|[^\sA-Za-z0-9]")
# Words written after "non" name their opposite ("non-ST elevation myocardial infarction" is no STEMI);
# the same rule as the lexicon's display match (core.evidence.binding.NOT_AFTER_NON).
_AFTER_NON = re.compile(r"\bnon[- ]\Z", re.IGNORECASE)
_MAX_STEMS = 200_000  # memoised words: note vocabularies are unbounded


@dataclass(frozen=True, slots=True)
class PhraseRules:
    max_extra: int
    function_words: frozenset[str]
    break_marks: frozenset[str]
    break_words: frozenset[str]
    droppable: frozenset[str]
    combining_forms: tuple[tuple[str, str], ...]  # longest prefix first
    ectomy_actions: tuple[str, ...]
    initialisms: dict[str, str]  # "prbc" -> "packed red blood cell"
    synonym_sets: tuple[tuple[frozenset[str], tuple[str, ...]], ...]  # (qualifiers, the words that tell them)
    modifier_words: frozenset[str] = frozenset()
    linking: tuple[tuple[str, ...], ...] = ()  # "status post", "s/p": as words, lower case
    word_parts: dict[str, str] = field(default_factory=dict)  # "desaturation" -> "decreased saturation"
    organ_adjectives: dict[str, str] = field(default_factory=dict)  # "ureteral" -> "ureter", "renal" -> "kidney"
    clipped_forms: dict[str, str] = field(default_factory=dict)  # "staph" -> "staphylococcus"
    act_words: tuple[tuple[str, ...], ...] = ()  # ("place", "insert", "pass", ...): one act, told by any
    noun_verbs: tuple[tuple[str, ...], ...] = ()  # ("loss", "lose"): a noun and its verb the stemmer cannot join
    measure_words: dict[str, str] = field(default_factory=dict)  # "pounds" -> "weight"
    verb_nouns: tuple[tuple[str, str], ...] = ()  # ("ure", "e"): closure -> close, where "close" is a verb
    not_verb_nouns: frozenset[str] = frozenset()  # "pressure": no pressing
    passive_auxiliaries: frozenset[str] = frozenset()  # "was": "the fascia was closed"
    scope_actions: tuple[str, ...] = ()  # "insert", "pass": a '-scopy' is its '-scope' put in

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> PhraseRules:
        forms = dict(data["combining_forms"])
        return cls(int(data["max_extra"]), frozenset(data["function_words"]), frozenset(data["break_marks"]),
                   frozenset(data["break_words"]), frozenset(data["droppable_modifiers"]),
                   tuple(sorted(forms.items(), key=lambda kv: -len(kv[0]))), tuple(data["ectomy_actions"]),
                   {k.lower(): v.lower() for k, v in data.get("initialisms", {}).items()},
                   tuple((frozenset(s["qualifiers"]), tuple(s["words"])) for s in data.get("synonym_sets", ())),
                   frozenset(data.get("modifier_words", ())),
                   tuple(tuple(w.lower() for w, _, _ in _words_of(p)) for p in data.get("linking_phrases", ())),
                   {k.lower(): v.lower() for k, v in data.get("word_parts", {}).items()},
                   {k.lower(): v.lower() for k, v in data.get("organ_adjectives", {}).items()},
                   {k.lower(): v.lower() for k, v in data.get("clipped_forms", {}).items()},
                   tuple(tuple(w.lower() for w in group) for group in data.get("act_words", ())),
                   tuple(tuple(w.lower() for w in group) for group in data.get("noun_verbs", ())),
                   {k.lower(): v.lower() for k, v in data.get("measure_words", {}).items()},
                   tuple((str(end), str(verb_end)) for end, verb_end in data.get("verb_nouns", ())),
                   frozenset(w.lower() for w in data.get("not_verb_nouns", ())),
                   frozenset(w.lower() for w in data.get("passive_auxiliaries", ())),
                   tuple(w.lower() for w in data.get("scope_actions", ())))


@cache
def load_phrase_rules() -> PhraseRules:
    return packaged_built("medeventgraph.nlp", "phrase_rules.json", PhraseRules.from_json)


class Stems:
    """Word -> the stems it can fill a slot with (memoised; notes repeat a small vocabulary)."""

    def __init__(self, wordforms: WordForms, rules: PhraseRules) -> None:
        from nltk.stem.snowball import SnowballStemmer  # pure code, no corpus to download

        self._wordforms = wordforms
        self._snowball = SnowballStemmer("english").stem
        self._rules = rules
        self._memo: dict[str, frozenset[str]] = {}
        self._cues: dict[frozenset[str], tuple[str, ...]] = {}
        self._parts = {self.stem(k): v for k, v in rules.word_parts.items()}  # by the word's stem: every form
        # an organ's adjective and its noun, a clipped word and the whole one, the verbs of one act, a
        # noun and its verb, a measure and what it measures: one slot
        self._same: dict[str, frozenset[str]] = {}
        for group in (*rules.organ_adjectives.items(), *rules.clipped_forms.items(), *rules.act_words,
                      *rules.noun_verbs, *rules.measure_words.items()):
            same = frozenset(self.stem(w) for w in group)
            for form in same:
                self._same[form] = self._same.get(form, frozenset()) | same

    def stem(self, lower: str) -> str:
        if lower[:1].isdigit():
            return lower.replace(",", "")  # "20,000" is 20000
        if not lower.isalpha() or len(lower) < 3:
            return lower
        lemma = self._wordforms.lemma(lower)
        if lemma.endswith("ment") and len(lemma) > 7:
            lemma = lemma[:-4]  # placement -> place, debridement -> debride
        s = self._snowball(lemma)
        if lemma.endswith(("ator", "itor", "ctor", "ous")):
            return s + "~" + lemma[-2:]  # a dilator is no dilation, continuous no continued
        if s.endswith("ia") and len(s) > 5:
            s = s[:-2]  # hypoxia / hypoxic, anemia / anemic, ischemia / ischemic
        elif s.endswith("osi"):
            s = s[:-1]  # anastomosis / anastomosed, diagnosis / diagnosed
        return s

    def of(self, word: str) -> frozenset[str]:
        found = self._memo.get(word)
        if found is None:
            lower = word.lower()
            own = self.stem(lower)
            found = (frozenset({own}) | self._same.get(own, frozenset()) | self._ectomy(lower)
                     | self._told_by_parts(lower) | (self._spelled(lower) if _capitals(word) else frozenset()))
            if len(self._memo) < _MAX_STEMS:
                self._memo[word] = found
        return found

    def initialism(self, lower: str) -> str | None:
        """The long form a short form names ("prbcs" -> "packed red blood cell"), if listed."""
        found = self._rules.initialisms.get(lower)
        if found is None and lower.endswith("s") and len(lower) > 3:
            found = self._rules.initialisms.get(lower[:-1])
        return found

    def fills_many(self, word: str) -> bool:
        """An '-ectomy' word (organ and act), a '-scopy' word (instrument and act) or a short form
        (its long form's words) fills several slots."""
        lower = word.lower()
        return (lower.endswith(("ectomy", "ectomies")) or self._scope(lower) is not None
                or (_capitals(word) and self.initialism(lower) is not None) or self.parts(lower) is not None)

    def parts(self, lower: str) -> tuple[str, ...] | None:
        """The words a note may tell this word by ("desaturated": decreased, saturation), if listed."""
        if not self._parts or not lower.isalpha() or len(lower) < 3:
            return None
        found = self._parts.get(self.stem(lower))
        return None if found is None else tuple(w for w, _, _ in _words_of(found)
                                                if w.isalpha() and w not in self._rules.function_words)

    def _told_by_parts(self, lower: str) -> frozenset[str]:
        parts = self.parts(lower)
        return frozenset(self.stem(w) for w in parts) if parts else frozenset()

    def qualifier(self, lower: str) -> frozenset[str] | None:
        """The stems that tell a change a query states by this qualifier ("elevated": rose, raised ...)."""
        return next((frozenset(self.stem(w) for w in words) for quals, words in self._rules.synonym_sets
                     if lower in quals), None)

    def _long_words(self, lower: str) -> list[str]:
        """The content words of the long form a short form spells, in order (none if it spells none)."""
        long = self.initialism(lower)
        if long is None:
            return []
        return [w for w, _, _ in _words_of(long) if w.isalpha() and w not in self._rules.function_words]

    def spelled_head(self, word: str) -> str | None:
        """The stem of the last word of the long form a short form spells ("HIT": thrombocytopenia)."""
        words = self._long_words(word.lower()) if _capitals(word) else []
        return self.stem(words[-1]) if words else None

    def _spelled(self, lower: str) -> frozenset[str]:
        return frozenset(self.stem(w) for w in self._long_words(lower))

    def cues(self, slot: frozenset[str]) -> tuple[str, ...]:
        """Substrings one of which a note text holds wherever a word fills this slot: each stem's
        first letters, "ectom" where an '-ectomy' word may fill it, a short form that spells it."""
        found = self._cues.get(slot)
        if found is None:
            out = {alt.removeprefix(_PARTICIPLE)[:3] for alt in slot}
            acts = {self.stem(a) for a in self._rules.ectomy_actions} | {self.stem(o) for _, o in self._rules.combining_forms}
            if slot & acts:
                out.add("ectom")
            out.update(short for short in self._rules.initialisms if slot & self._spelled(short))
            found = tuple(sorted(out))
            if len(self._cues) < _MAX_STEMS:
                self._cues[slot] = found
        return found

    def bag(self, sentence: str) -> frozenset[str]:
        """Every stem a sentence's words can fill a slot with: a sentence lacking one of a
        phrase's slots is not searched (its words' stems are memoised, the bag is not: cheap)."""
        words = _words_of(sentence)
        return frozenset().union(*(self.filled_by(words, j) for j, (w, _, _) in enumerate(words) if w[0].isalnum()))

    def filled_by(self, words: Sequence[tuple[str, int, int]], j: int, since: int = 0) -> frozenset[str]:
        """The stems word j fills a slot with; after a passive auxiliary (at or after word `since`,
        so a phrase that cites the participle cites its auxiliary too) also the participle's marked
        stems ("was closed": the slot of "closure")."""
        have = self.of(words[j][0])
        if _after_auxiliary(words, j, self._rules, since):
            return have | frozenset(_PARTICIPLE + s for s in have)
        return have

    def _verb_forms(self, lower: str) -> frozenset[str]:
        # A query's word may be told by its verb's irregular forms ("fall": she fell; "swelling":
        # the leg was swollen); a laterality or position word ("left") is never the verb it spells.
        if lower in self._rules.modifier_words:
            return frozenset()
        return frozenset(self.stem(f) for f in self._wordforms.verb_forms(lower))

    def _as_participle(self, lower: str) -> frozenset[str]:
        # The stemmer leaves some nouns apart from their verbs ("closure" closur, "closed" close;
        # "division" divis, "divided" divid). Such a noun is told by its verb only as a passive
        # participle, the noun's subject before it ("the fascia was closed", "the vessel was
        # divided"): an active verb has another object ("he failed extubation" tells no failure).
        if not lower.isalpha() or len(lower) < 5:
            return frozenset()
        noun = self._wordforms.lemma(lower)
        if noun in self._rules.not_verb_nouns:
            return frozenset()
        return frozenset(_PARTICIPLE + self.stem(verb) for end, verb_end in self._rules.verb_nouns
                         if noun.endswith(end) and len(noun) - len(end) >= 3
                         and self._wordforms.is_verb(verb := noun[: len(noun) - len(end)] + verb_end))

    def _scope(self, lower: str) -> str | None:
        """The stem of the instrument a '-scopy' word's act puts in ("cystoscopy": cystoscope)."""
        if not self._rules.scope_actions or not lower.endswith(("oscopy", "oscopies")):
            return None
        return self.stem(lower[: lower.rindex("scop")] + "scope")

    def _ectomy(self, lower: str) -> frozenset[str]:
        if not lower.endswith(("ectomy", "ectomies")):
            return frozenset()
        root = lower[: lower.rindex("ectom")]
        organ = next((o for prefix, o in self._rules.combining_forms if root.endswith(prefix)), None)
        if organ is None:
            return frozenset()  # an organ the table does not know: the word stands only for itself
        return frozenset({self.stem(a) for a in self._rules.ectomy_actions} | {self.stem(organ)})

    def slots_of(self, word: str) -> list[frozenset[str]]:
        """The slots a query word fills: one, or two for an '-ectomy' word (its organ, its act)."""
        lower = word.lower()
        long = self.initialism(lower)
        if long is not None:
            own = self.stem(lower)
            return [frozenset({self.stem(w), own}) for w, _, _ in _words_of(long)
                    if w.isalpha() and w not in self._rules.function_words]
        parts = self.parts(lower)
        if parts is not None:  # each part, or the word itself in any form; the first part may be a qualifier
            own = self.stem(lower)
            slots = [frozenset({self.stem(w), own}) for w in parts]
            qualifier = self.qualifier(parts[0]) if len(parts) > 1 else None
            return [slots[0] | qualifier, *slots[1:]] if qualifier is not None else slots
        scope = self._scope(lower)
        if scope is not None:  # "cystoscopy": the cystoscope, and its being put in ("was inserted")
            own = self.stem(lower)
            return [frozenset({scope, own}), frozenset(self.stem(a) for a in self._rules.scope_actions) | {own}]
        if not lower.endswith(("ectomy", "ectomies")):
            return [self.of(word) | self._verb_forms(lower) | self._as_participle(lower)]
        root = lower[: lower.rindex("ectom")]
        organ = next((o for prefix, o in self._rules.combining_forms if root.endswith(prefix)), None)
        acts = frozenset(self.stem(a) for a in self._rules.ectomy_actions) | {self.stem(lower)}
        return [frozenset({self.stem(organ), self.stem(lower)}), acts] if organ else [self.of(word)]


@lru_cache(maxsize=1)
def shared_stems() -> Stems:
    """One Stems for checks outside a pipeline (the contract's re-check): read-only tables."""
    return Stems(WordForms(), load_phrase_rules())


_PARTICIPLE = "="  # marks a verb's stem that fills a slot only as a passive participle (`Stems._as_participle`)


def _after_auxiliary(words: Sequence[tuple[str, int, int]], j: int, rules: PhraseRules, since: int = 0) -> bool:
    """Word j follows a passive auxiliary, perhaps with one adverb between ("was then closed"), or
    ends a list of participles that follows one ("was clamped, ligated and divided")."""
    before = [w.lower() for w, _, _ in words[max(since, j - 2):j]]
    if before and before[-1] in rules.passive_auxiliaries:
        return True
    if len(before) == 2 and before[0] in rules.passive_auxiliaries and (
            before[1] in rules.function_words or before[1].endswith("ly")):
        return True
    run = [w.lower() for w, _, _ in words[max(since, j - _PARTICIPLE_RUN):j]]
    while run and run[-1] in _LIST_JOINS:
        run.pop()
    if not run or not run[-1].endswith("ed"):
        return False  # a list of participles ends in "and" before its last: "ligated and divided"
    while run and (run[-1].endswith("ed") or run[-1] in _LIST_JOINS):
        run.pop()
    return bool(run) and run[-1] in rules.passive_auxiliaries


_PARTICIPLE_RUN = 7  # words and marks back over a list of participles to its passive auxiliary
_LIST_JOINS = frozenset({"and", "then", ","})


def _capitals(word: str) -> bool:
    """A short form as notes write one: capitals, perhaps a plural 's' ("PRBCs")."""
    core = word[:-1] if word.endswith("s") and len(word) > 2 else word
    return core.isupper()


def _words_of(text: str) -> list[tuple[str, int, int]]:
    """(word, start, end): letters-and-digits runs and single marks, as both sides split them."""
    return [(m.group(), m.start(), m.end()) for m in _WORD.finditer(text)]


@dataclass(frozen=True, slots=True)
class PhraseSlots:
    """A query event's content words as slots; `dropped` the droppable words left out."""

    slots: tuple[frozenset[str], ...]
    dropped: tuple[str, ...] = ()
    head: int = 0  # slots from this index on are the last word's (the head); those before, its modifiers


def phrase_slots(text: str, stems: Stems, *, drop: bool = False) -> PhraseSlots | None:
    """The slots of an event text (None: no content word). `drop`: without its droppable words
    (None when it has none, or nothing else)."""
    rules = load_phrase_rules()
    # numbers are content: "ANC 900" is no mention of "ANC" alone
    content = [w for w, _, _ in _words_of(text) if w[0].isalnum() and w.lower() not in rules.function_words]
    dropped = tuple(w.lower() for w in content if w.lower() in rules.droppable) if drop else ()
    if drop and not dropped:
        return None
    kept = [w for w in content if w.lower() not in dropped]
    slots = tuple(s for w in kept for s in stems.slots_of(w))
    head = len(slots) - len(stems.slots_of(kept[-1])) if kept else 0  # slots of the last word: the head
    qualifier = stems.qualifier(kept[0].lower()) if len(kept) > 1 else None
    if qualifier is not None:  # "elevated LFTs": the change may be told in other words
        slots = (qualifier | slots[0], *slots[1:])
    return PhraseSlots(slots, dropped, head) if slots else None


@dataclass(frozen=True, slots=True)
class PhraseFind:
    start: int  # characters of the text searched, first piece to last
    end: int
    pieces: tuple[tuple[int, int], ...]  # the words that fill the slots, in text order
    dropped: tuple[str, ...] = ()
    named: tuple[int, int] | None = None  # where the note names the left-out words with their noun (NamedSlots)


def _is_break(words: Sequence[tuple[str, int, int]], j: int, text: str, rules: PhraseRules) -> bool:
    word, _, end = words[j]
    if word == ".":  # a stop, not the dot of "No. 3" or "Dr. Y": followed by a capital (or the end)
        rest = text[end:end + 3].lstrip()
        return not rest or rest[0].isupper()
    return word in rules.break_marks or word.lower() in rules.break_words


def _linked(words: Sequence[tuple[str, int, int]], rules: PhraseRules) -> frozenset[int]:
    """Indices of the words of linking phrases ("status post", "s/p") in a text's words."""
    if not rules.linking:
        return frozenset()
    lowers = [w.lower() for w, _, _ in words]
    out: set[int] = set()
    for phrase in rules.linking:
        n = len(phrase)
        out.update(k for i in range(len(lowers) - n + 1) if tuple(lowers[i:i + n]) == phrase for k in range(i, i + n))
    return frozenset(out)


def _window(words: Sequence[tuple[str, int, int]], i: int, slots: tuple[frozenset[str], ...],
            stems: Stems, rules: PhraseRules, text: str, linked: frozenset[int] = frozenset()
            ) -> tuple[int, tuple[tuple[int, int], ...], set[int]] | None:
    """From word i on: the first word index that fills the last open slot, the pieces, and the
    slots the last piece filled. A word of a linking phrase (`linked`) fills no slot and is
    not counted."""
    open_slots = set(range(len(slots)))
    pieces: list[tuple[int, int]] = []
    extra = 0
    for j in range(i, len(words)):
        word, start, end = words[j]
        lower = word.lower()
        if _is_break(words, j, text, rules):
            return None
        if not word[0].isalnum() or lower in rules.function_words or j in linked:
            continue
        have = stems.filled_by(words, j, i)
        filled = [k for k in open_slots if slots[k] & have]
        if not filled:
            if j == i:
                return None
            if not word[0].isdigit():  # a count the note adds ("2 units of") is no other word
                extra += 1
            if extra > rules.max_extra:
                return None
            continue
        if len(filled) > 1 and not stems.fills_many(word):
            filled = filled[:1]  # a plain word fills one slot; an '-ectomy' word or a short form several
        open_slots.difference_update(filled)
        pieces.append((start, end))
        if not open_slots:
            head = stems.spelled_head(word) if len(pieces) == 1 else None
            if head is not None and not any(head in slots[k] for k in filled):
                return None  # a short form alone names its long form's head: "HIT" is no heparin
            return j, tuple(pieces), set(filled)
    return None


def _modifies_another(words: Sequence[tuple[str, int, int]], j: int, last: set[int], slots: PhraseSlots,
                      rules: PhraseRules) -> bool:
    """The last piece fills only modifier slots and the note goes on with a noun it modifies:
    "flank pain and left shoulder" tells no left flank pain."""
    if any(k >= slots.head for k in last) or j + 1 >= len(words):
        return False
    lower = words[j][0].lower()
    if lower not in rules.modifier_words:
        return False  # a noun ("transfused two units of platelets overnight") ends a phrase well
    nxt = words[j + 1][0]
    return nxt[0].isalpha() and nxt.lower() not in rules.function_words and nxt.lower() not in rules.break_words


def find_phrases(text: str, slots: PhraseSlots, stems: Stems, offset: int = 0) -> list[PhraseFind]:
    """Non-overlapping shortest finds of the slots in one sentence's text, in text order."""
    rules = load_phrase_rules()
    words = _words_of(text)
    linked = _linked(words, rules)
    found: list[tuple[int, int, tuple[tuple[int, int], ...]]] = []
    for i in range(len(words)):
        w = _window(words, i, slots.slots, stems, rules, text, linked)
        if (w is not None and not _modifies_another(words, w[0], w[2], slots, rules)
                and not _AFTER_NON.search(text, 0, w[1][0][0])):
            j, pieces, _ = w
            found.append((words[i][1], words[j][2], pieces))
    found.sort(key=lambda f: (f[1] - f[0], f[0]))
    out: list[PhraseFind] = []
    for start, end, pieces in found:
        if all(end <= o.start - offset or start >= o.end - offset for o in out):
            out.append(PhraseFind(offset + start, offset + end, tuple((offset + s, offset + e) for s, e in pieces),
                                  slots.dropped))
    return sorted(out, key=lambda f: f.start)


def check_phrase(cited: str, event_text: str, pieces: tuple[tuple[int, int], ...], dropped: tuple[str, ...],
                 stems: Stems | None = None, *, named: tuple[int, int] | None = None,
                 preceding: str | None = None) -> bool:
    """Do these words of the cited text (offsets relative to it) make the event's phrase? The
    cited text runs from the first piece (or the passive auxiliary before it) to the last and
    holds no break; the pieces fill every slot; the other content words are at most `max_extra`;
    the left-out words are droppable words of the event, or (`named`, at note offsets) leading
    words the note's text before the cited words (`preceding`) names with the noun the pieces
    leave bare (`named_at`). Pure: what the contract re-checks."""
    stems = stems or shared_stems()
    if not pieces or pieces[-1][1] != len(cited) or _AFTER_NON.search((preceding or "")[-5:] + cited[:pieces[0][0]]):
        return False
    split = None
    if named is not None:
        split = next((s for s in named_splits(event_text, stems) if s.dropped == dropped), None)
        if split is None or preceding is None:
            return False
        slots: PhraseSlots | None = split.rest
        if slots is None:
            return False
    else:
        slots = phrase_slots(event_text, stems, drop=bool(dropped))
        if slots is None or slots.dropped != dropped:
            return False
    words = _words_of(cited)
    rules = load_phrase_rules()
    window = _window(words, 0, slots.slots, stems, rules, cited, _linked(words, rules))
    if window is None or words[window[0]][2] != len(cited) or window[1] != pieces:
        return False
    if split is None:
        return True
    shift = len(preceding or "")
    return named_at((preceding or "") + cited, tuple((s + shift, e + shift) for s, e in pieces), split, stems) == named


# -- leading words the note names once with their noun, then leaves out ------------------------
# "Type 1 diabetes, insulin pump. ... she had a pump malfunction" tells "insulin pump malfunction":
# the note names the insulin pump, then calls it "the pump". Read as a definite reference: the
# noun where the phrase is found stands bare (no other word before it), the nearest earlier
# naming of the noun with words before it names it with exactly the left-out words (in any
# order: "ureteral double-J stent" for "double-J ureteral stent"), and every mention of the noun
# between the two stands bare too, so no other kind of it ("a feeding pump") came in between.


@dataclass(frozen=True, slots=True)
class NamedSlots:
    """An event text split at its noun: the leading words the note may leave out, the rest."""

    rest: PhraseSlots  # the slots from the noun on, as found in the clause
    left: tuple[frozenset[str], ...]  # one slot per left-out word
    noun: frozenset[str]
    dropped: tuple[str, ...]  # the left-out words, lower case, as the event writes them


def named_splits(text: str, stems: Stems) -> list[NamedSlots]:
    """Every split of an event text into leading words and a noun with at least one word after
    it, fewest leading words first; only plain words (one slot each) before and at the noun."""
    rules = load_phrase_rules()
    content = [w for w, _, _ in _words_of(text) if w[0].isalnum() and w.lower() not in rules.function_words]
    out = []
    for k in range(1, len(content) - 1):
        if any(stems.fills_many(w) or len(stems.slots_of(w)) != 1 for w in content[:k + 1]):
            break
        rest = phrase_slots(" ".join(content[k:]), stems)
        if rest is not None:
            out.append(NamedSlots(rest, tuple(stems.of(w) for w in content[:k]), stems.of(content[k]),
                                  tuple(w.lower() for w in content[:k])))
    return out


def _before(words: Sequence[tuple[str, int, int]], i: int, rules: PhraseRules) -> int | None:
    """The index of the word written right before word i, through joiners ("J-stent": J); None
    when a mark or nothing comes before it."""
    j = i - 1
    while j >= 0 and words[j][0] in ("-", "/"):
        j -= 1
    if j < 0 or (j == i - 1 and not words[j][0][0].isalnum()):
        return None
    return j if words[j][0][0].isalnum() else None


def _bare(words: Sequence[tuple[str, int, int]], i: int, rules: PhraseRules) -> bool:
    """No word modifies this noun: a mark, a function word or a count stands before it."""
    j = _before(words, i, rules)
    return j is None or words[j][0].lower() in rules.function_words or words[j][0][0].isdigit()


def _names_it(words: Sequence[tuple[str, int, int]], i: int, split: NamedSlots, stems: Stems,
              rules: PhraseRules) -> int | None:
    """The index of the first left-out word, when the words right before noun i are exactly
    the left-out words (one each, any order)."""
    open_slots = set(range(len(split.left)))
    at = i
    while open_slots:
        j = _before(words, at, rules)
        if j is None:
            return None
        filled = [k for k in open_slots if split.left[k] & stems.of(words[j][0])]
        if not filled:
            return None
        open_slots.discard(filled[0])
        at = j
    return at


def named_at(text: str, pieces: tuple[tuple[int, int], ...], split: NamedSlots, stems: Stems | None = None
             ) -> tuple[int, int] | None:
    """Where `text` (a note up to the find's last piece) names the left-out words with the noun
    that the find's words leave bare, or None. Pure: what the contract re-checks."""
    stems = stems or shared_stems()
    rules = load_phrase_rules()
    if not pieces:
        return None
    words = _words_of(text[:pieces[-1][1]])
    index = {start: i for i, (_, start, _) in enumerate(words)}
    noun = next((index.get(s) for s, e in pieces if stems.of(text[s:e]) & split.noun), None)
    if noun is None or not _bare(words, noun, rules):
        return None
    for i in range(noun - 1, -1, -1):
        if not (words[i][0][0].isalpha() and stems.of(words[i][0]) & split.noun):
            continue
        first = _names_it(words, i, split, stems, rules)
        if first is not None:
            return words[first][1], words[i][2]
        if not _bare(words, i, rules):
            return None  # the noun named with other words in between: another kind of it
    return None
