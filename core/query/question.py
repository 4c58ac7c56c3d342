"""Free-text questions -> VerificationQuery, by rules; refuses what it cannot parse.

Handled shapes (case-insensitive, optional "was/did/is ... ?" framing):
  X after Y | X before Y | X during/while Y (overlaps) | X then Y then Z
  X within N hours/days/minutes of|after Y  |  X within N hours before Y
Scope comes from "within one/the same encounter|admission|stay|visit|episode".
Event kinds come from the lexicon; an event the lexicon does not know keeps kind None.
Actions come from the words of resources/action_words.json in the event's phrase (or the
lead verb, for the first event): "given" asks for an administration, "ordered" for an order,
"resulted" for a lab's result time. "started on" is read against the record: administered
when it holds administrations, else any; `parse_question_noted` says which was chosen.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from medeventgraph.core.query.lexicon import Lexicon, load_lexicon, normalize_text
from medeventgraph.core.query.model import ACTIONS, VerificationQuery
from medeventgraph.model.packaged import packaged_object

__all__ = ["QuestionParseError", "parse_question", "parse_question_noted"]


class QuestionParseError(ValueError):
    """The question is not in a shape the rules understand; rephrase or send query JSON."""


_SCOPE = re.compile(
    r"\b(?:within|in|during)\s+(?:one|a|the\s+same|same|a\s+single|the)\s+"
    r"(encounter|admission|stay|visit|hospitalization|hospitalisation|episode)\b"
)
_SCOPE_KIND = {"episode": "episode"}
_UNITS = {"minute": "M", "min": "M", "hour": "H", "hr": "H", "h": "H", "day": "D", "week": "W"}
_NUMBERS = {"one": 1, "an": 1, "a": 1, "two": 2, "three": 3, "four": 4, "six": 6, "twelve": 12, "24": 24}
_WITHIN = re.compile(
    r"\bwithin\s+(?P<n>\d+(?:\.\d+)?|one|an|a|two|three|four|six|twelve)\s*"
    r"(?P<u>minutes?|mins?|hours?|hrs?|h|days?|weeks?)\s+(?P<rel>of|after|before|from|following|preceding)\s+"
)
_LEAD = re.compile(
    r"^(?:was|were|did|does|is|has|have|had)\s+(?:the\s+patient\s+|there\s+|an?\s+|the\s+)?"
    r"(?:(?:receive|receiving|received|get|given|have|develop|developed|experience)\s+|"
    r"(?:documented|recorded|noted|diagnosed|started|given|administered)\s+)?"
)
_VERBS = re.compile(
    r"\b(?:documented|recorded|noted|diagnosed|given|administered|started|occur|occurred|happen|"
    r"happened|received|develop|developed|done|performed|measured|drawn)\b"
)
_FILLER = re.compile(r"^(?:the|a|an|any|some|on)\s+|\s+(?:first|result|results|value|level|was|were)$")


@dataclass(frozen=True)
class _ActionWords:
    """Action -> a pattern over the phrases that ask for it (resources/action_words.json)."""

    patterns: tuple[tuple[str, re.Pattern[str]], ...]

    def find(self, phrase: str) -> str | None:
        for action, pattern in self.patterns:
            if pattern.search(phrase):
                return action
        return None

    def strip(self, phrase: str) -> str:
        for _, pattern in self.patterns:
            phrase = pattern.sub(" ", phrase)
        return phrase


@cache
def _load_action_words() -> _ActionWords:
    raw = packaged_object("medeventgraph.core", "action_words.json")
    patterns = []
    for action, words in raw["actions"].items():
        ordered = sorted((normalize_text(w) for w in words), key=lambda w: (-len(w), w))
        patterns.append((action, re.compile(r"\b(?:" + "|".join(re.escape(w) for w in ordered) + r")\b")))
    return _ActionWords(tuple(patterns))


def parse_question(text: str, lexicon: Lexicon | None = None, *, administrations: bool | None = None) -> VerificationQuery:
    return parse_question_noted(text, lexicon, administrations=administrations)[0]


def parse_question_noted(
    text: str, lexicon: Lexicon | None = None, *, administrations: bool | None = None
) -> tuple[VerificationQuery, dict[str, str]]:
    """The query, and per event id how an action word was read where the record decided it.

    `administrations`: whether the patient's record holds MedicationAdministration (None:
    not known, so "started on" stays `any`)."""
    lexicon = lexicon or load_lexicon()
    words = _load_action_words()
    q = normalize_text(text).rstrip("?. ")
    if not q:
        raise QuestionParseError("empty question")
    scope = "patient"
    m = _SCOPE.search(q)
    if m:
        scope = _SCOPE_KIND.get(m.group(1), "encounter")
        q = (q[: m.start()] + q[m.end():]).strip()
    lead = _LEAD.match(q)
    lead_action = words.find(lead.group(0)) if lead else None
    q = q[lead.end():].strip() if lead else q
    within = None
    w = _WITHIN.search(q)
    if w:
        within = _duration(w.group("n"), w.group("u"))
        word = w.group("rel")
        left, right = q[: w.start()], q[w.end():]
        kind = "before" if word in ("before", "preceding") else "after"
        if word == "of":
            # "X within 1 hour of Y": X follows Y, the reading used for time-to-treatment questions.
            kind = "after"
        parts, relations = [left, right], [kind]
    else:
        parts, relations = _split(q)
    events = [_event(f"e{k}", p, lexicon) for k, p in enumerate(parts)]
    notes: dict[str, str] = {}
    for k, (event, part) in enumerate(zip(events, parts, strict=True)):
        action = words.find(part) or (lead_action if k == 0 else None)
        if action == "started":
            action, notes[str(event["id"])] = _started(administrations)
        _set_action(event, action)
    rels: list[dict[str, object]] = []
    for k, kind in enumerate(relations):
        rel: dict[str, object] = {"from": f"e{k}", "to": f"e{k + 1}", "type": kind}
        if within and kind != "overlaps":
            rel["within"] = within
        rels.append(rel)
    try:
        query = VerificationQuery.model_validate(
            {"id": "question", "events": events, "relations": rels, "scope": scope}
        )
        return query, notes
    except ValueError as exc:
        raise QuestionParseError(f"could not build a query from the question: {exc}") from None


def _split(q: str) -> tuple[list[str], list[str]]:
    if re.search(r"\bthen\b", q):
        parts = [p for p in re.split(r",?\s*\b(?:and\s+)?then\b\s*", q)]
        return parts, ["before"] * (len(parts) - 1)
    for word, kind in (("before", "before"), ("after", "after"), ("during", "overlaps"), ("while", "overlaps"),
                       ("followed by", "before"), ("prior to", "before"), ("following", "after")):
        found = re.search(rf"\b{word}\b", q)
        if found:
            return [q[: found.start()], q[found.end():]], [kind]
    raise QuestionParseError(
        "no relation found: use before, after, during, then, or 'within N hours of' between two events"
    )


def _started(administrations: bool | None) -> tuple[str | None, str]:
    if administrations:
        return "administered", "'started on' read as administered: the record holds medication administrations"
    why = "the record holds no medication administrations" if administrations is False else "the record was not consulted"
    return None, f"'started on' read as any medication record: {why}"


def _set_action(event: dict[str, object], action: str | None) -> None:
    """Keep an action word only where the event's kind can take it (a kind-less event takes
    an action that only one kind has, and gets that kind)."""
    if action is None:
        return
    kind = event.get("kind")
    if kind == "lab" and action == "ordered":
        kind = event["kind"] = "procedure"  # a lab order is a ServiceRequest, which maps to a procedure order
    if kind is None:
        kinds = [k for k, acts in ACTIONS.items() if action in acts]
        if len(kinds) != 1:
            return
        event["kind"] = kinds[0]
    elif action not in ACTIONS.get(str(kind), ()):
        return
    event["action"] = action


def _event(event_id: str, phrase: str, lexicon: Lexicon) -> dict[str, object]:
    text = _load_action_words().strip(phrase)
    text = _VERBS.sub(" ", text)
    text = re.sub(r"\s+", " ", text).strip(" ,")
    text = _LEAD.sub("", text).strip()
    for _ in range(3):
        text = _FILLER.sub("", text).strip()
    if not text or len(text) > 120 or len(text.split()) > 8:
        raise QuestionParseError(f"could not find an event in {phrase.strip()!r}")
    expanded = lexicon.expand(text)
    event: dict[str, object] = {"id": event_id, "text": text}
    if expanded.via != "literal" and expanded.kind:
        event["kind"] = expanded.kind
    return event


def _duration(n: str, unit: str) -> str:
    value = float(_NUMBERS.get(n, n) if not n.replace(".", "").isdigit() else n)
    u = _UNITS[unit.rstrip("s") if unit not in ("hrs", "mins") else unit[:-1]]
    number = f"{value:g}"
    return f"P{number}{u}" if u in ("D", "W") else f"PT{number}{u}"
