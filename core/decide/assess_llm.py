"""The optional LLM assessor: judgments from an OpenAI-compatible chat-completions endpoint
(e.g. a vLLM server), everything else as in the deterministic assessor (paper Eq. 6-8).

Isolation: the request is built from the frozen EvidenceBundle alone (`bundle_payload`): the
query (events, relations, scope) and the admitted items (context, times with granularity,
assertion, scope unit and status, value, source reference). No search metadata, score, rank,
memory or controller state exists in a bundle, and the patient id and query id are left out.
Scope units are sent as opaque per-bundle labels (`unit-1`, `unit-2`, … in order of first
appearance), never as `Patient/<id>` or encounter ids: the assessor needs only which items share
a unit. Every string copied from the record or the query (item ids, context, concept, codes,
status, value text, source, derived-from, event ids and texts) then goes through
`core.redaction.Redactor`: the patient id — and, given `patient_terms`, the identifiers and name
parts of the patient's Patient resource — is replaced by `[patient]` wherever it occurs, in any
case, percent-encoded or not (judgments are mapped back through the same redaction).

Axes. S_tim, S_num and the chain come from `assess.structure` (deterministic, as before).
From the reply's judgments (item id, relation id, polarity, certainty, basis):
  S_jdg+  mean over relations of the strongest supporting judgment (certain 1, uncertain 0.5);
  S_jdg-  the strongest countering judgment (certain 1, uncertain 0.5), each citing an item.
A judgment counts only if it cites an item of the bundle and a relation of the query, the item
is bound to one of that relation's events and is in a resolved scope unit (scope-unknown items
cannot by themselves establish support or refutation), and, for an order or window counter, the
item's time is resolved, and a counter judgment (absence, order, window: each a claim about every
occurrence) needs the bundle to hold every grounded occurrence of the relation's two events in the
item's unit (core.coverage), as in core.counter. Everything else is discarded. The label uses the
same thresholds.

Eq. 8: temperature 0, a fixed seed, JSON output, and a cache keyed by bundle hash + model +
prompt hash (on disk under settings.cache_dir, and in process), so a repeated bundle is never
asked again. An HTTP error, timeout or invalid reply falls back to the deterministic assessor
with an OperationOutcome issue that names the failure class only (no PHI). Fallbacks are not
cached, so a later run asks again.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections import OrderedDict
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit, urlunsplit

import httpx
import orjson
from medeventgraph.core.decide.assess import (
    Assessment,
    Thresholds,
    assess,
    combine,
    load_thresholds,
    structure,
)
from medeventgraph.core.decide.counter import combine_weights
from medeventgraph.core.decide.redaction import Redactor
from medeventgraph.core.evidence.contract import EvidenceBundle, EvidenceItem
from medeventgraph.core.index.store import format_time
from medeventgraph.core.query.verdict import FailureType
from medeventgraph.model.occurrence import EventTime
from medeventgraph.model.outcome import Issue
from medeventgraph.model.packaged import packaged_text
from medeventgraph.model.settings import Settings
from pydantic import BaseModel, ConfigDict, Field, ValidationError

__all__ = ["LLMAssessor", "bundle_payload", "endpoint_problem", "prompt_text"]

SEED = 1234
PAYLOAD_VERSION = "3"  # bump when bundle_payload's rendering changes (it is part of the cache key)
_MEMORY_CACHE_SIZE = 1024
_memory: OrderedDict[str, _Reply] = OrderedDict()
_WEIGHT = {"certain": 1.0, "uncertain": 0.5}
_BASIS = {"absent": FailureType.NEGATED, "order": FailureType.OPPOSITE_ORDER, "window": FailureType.WINDOW}


class _Judgment(BaseModel):
    model_config = ConfigDict(extra="ignore")
    item: str = Field(max_length=512)
    relation: str = Field(max_length=64)
    polarity: Literal["supports", "counters", "neutral"]
    certainty: Literal["certain", "uncertain"] = "certain"
    basis: Literal["absent", "order", "window"] | None = None


class _Reply(BaseModel):
    model_config = ConfigDict(extra="ignore")
    judgments: list[_Judgment] = Field(max_length=5000)


@cache
def prompt_text() -> str:
    return packaged_text("medeventgraph.core", "llm_prompt.txt")


@cache
def _prompt_hash() -> str:
    return hashlib.sha256(prompt_text().encode()).hexdigest()


def _relation_id(k: int) -> str:
    return f"r{k}"


def _time(t: EventTime | None) -> dict[str, Any] | None:
    if t is None:
        return None
    return {
        "start": format_time(t.start) if t.start else None,
        "end": format_time(t.end) if t.end else None,
        "type": t.type.value,
        "granularity": t.granularity.value,
    }


def _unit_labels(bundle: EvidenceBundle) -> dict[str, str]:
    labels: dict[str, str] = {}
    for i in bundle.items:
        if i.unit and i.unit not in labels:
            labels[i.unit] = f"unit-{len(labels) + 1}"
    return labels


def _item(i: EvidenceItem, unit_label: str | None, r: Redactor) -> dict[str, Any]:
    """Rendered times, flags and labels as they are; strings from the record through `r`."""
    a, src = i.assertion, i.source
    value = None
    if i.value is not None:
        value = r.strings({k: getattr(i.value, k) for k in i.value.__dataclass_fields__
                           if getattr(i.value, k) is not None})
    return {
        "id": r(i.occurrence),
        "events": r.strings(i.events),
        "kind": i.kind.value,
        "origin": i.origin.value,
        "concept": r(i.concept),
        "codes": r.strings(i.codes),
        "context": r(i.context),
        "time": _time(i.time),
        "documented": _time(i.documented),
        "open_end": i.open_end,
        "unit": unit_label,
        "scope": i.scope,
        "assertion": {
            "negated": a.negated,
            "uncertain": a.uncertain,
            "hypothetical": a.hypothetical,
            "historical": a.historical,
            "family": a.family,
        },
        "status": r.strings(i.status),
        "value": value,
        "source": r.strings({
            "reference": src.reference,
            "json_path": src.json_path,
            "attachment": src.attachment,
            "start": src.start,
            "end": src.end,
            "section": src.section,
        }),
        "derived_from": r.strings(i.derived_from),
    }


def bundle_payload(bundle: EvidenceBundle, patient_terms: tuple[str, ...] = ()) -> dict[str, Any]:
    """The only data sent to the endpoint: a rendering of the frozen bundle with the patient id
    (and `patient_terms`: the patient's identifiers and names) cut out of every record string."""
    q = bundle.query
    units = _unit_labels(bundle)
    r = Redactor.of(bundle.patient, patient_terms)
    return {
        "query": {
            "events": [
                {"id": r(e.id), "text": r(e.text), "kind": e.kind, "hidden": e.hidden,
                 "codes": [r(f"{c.system}|{c.code}") for c in e.codes]}
                for e in q.events
            ],
            "relations": [
                {"id": _relation_id(k), "from": r(rel.source), "to": r(rel.target), "type": rel.type.value,
                 "within": rel.within}
                for k, rel in enumerate(q.relations)
            ],
            "scope": q.scope.value,
        },
        "items": [_item(i, units.get(i.unit) if i.unit else None, r) for i in bundle.items],
    }


def _score_judgments(
    bundle: EvidenceBundle, reply: _Reply, thresholds: Thresholds | None = None, patient_terms: tuple[str, ...] = ()
) -> Assessment:
    """Eq. 6-7 with the judgment axes from `reply` (invalid citations discarded)."""
    th = thresholds or load_thresholds()
    st = structure(bundle)
    redact = Redactor.of(bundle.patient, patient_terms)
    items = {redact(i.occurrence): i for i in bundle.items}  # the ids as they were sent
    relations = {_relation_id(k): r for k, r in enumerate(bundle.query.relations)}
    support: dict[str, float] = {}
    supporting: set[str] = set()
    counter, counter_failure, countering = 0.0, None, set()
    weights: dict[str, float] = {}  # item -> its heaviest counter judgment: one item is one piece
    # Sorted so that ties between equally strong counters resolve the same way for any reply order.
    for j in sorted(reply.judgments, key=lambda j: (j.item, j.relation, j.polarity, j.certainty, j.basis or "")):
        item, rel = items.get(j.item), relations.get(j.relation)
        if item is None or rel is None or j.polarity == "neutral":
            continue
        if not {rel.source, rel.target} & set(item.events) or not item.unit:
            continue
        w = _WEIGHT[j.certainty]
        if j.polarity == "supports":
            support[j.relation] = max(support.get(j.relation, 0.0), w)
            supporting.add(item.occurrence)
            continue
        basis = j.basis or "absent"
        span = st.spans.get(item.occurrence)
        if basis in ("order", "window") and not (span is not None and span.resolved):
            continue
        if not (bundle.complete(rel.source, item.unit) and bundle.complete(rel.target, item.unit)):
            continue  # absence and order are claims about every occurrence: the bundle must hold them all
        if w > counter:
            counter, counter_failure = w, _BASIS[basis]
        weights[item.occurrence] = max(weights.get(item.occurrence, 0.0), w)
        countering.add(item.occurrence)
    counter = combine_weights(weights.values())  # independent items combine as in core.counter
    s_jdg_plus = sum(support.values()) / len(relations) if relations else 0.0
    chain = {i.occurrence for i in st.members} if st.complete else set()
    return combine(
        st, s_jdg_plus, counter, counter_failure,
        tuple(sorted(chain | supporting)), tuple(sorted(countering)), th,
    )


def endpoint_problem(settings: Settings) -> str | None:
    """Why the configured endpoint cannot be asked at all, as one line (None when it answers).

    Checked when a command starts: a run that would otherwise wait out `llm_timeout_seconds` on
    every verdict and fall back each time stops at once instead. Any HTTP answer to GET
    {base}/models (OpenAI-compatible servers list their models there; a 401 or 404 still
    answers) counts as reachable. The URL is shown without userinfo."""
    base = (settings.llm_base_url or "").rstrip("/")
    parts = urlsplit(base)
    shown = urlunsplit((parts.scheme, parts.netloc.rpartition("@")[2], parts.path, "", ""))
    what = f"assessor 'llm': the endpoint MEG_LLM_BASE_URL={shown}"
    fix = "; start it, correct MEG_LLM_BASE_URL, or set MEG_ASSESSOR=deterministic"
    timeout = httpx.Timeout(settings.llm_timeout_seconds, connect=min(10.0, settings.llm_timeout_seconds))
    try:
        with httpx.Client(timeout=timeout) as http:
            http.get(base + "/models")
    except httpx.TimeoutException:
        return f"{what} did not answer in time (MEG_LLM_TIMEOUT_SECONDS){fix}"
    except (httpx.HTTPError, httpx.InvalidURL, ValueError) as exc:
        return f"{what} cannot be reached ({type(exc).__name__}){fix}"
    return None


class _Failure(Exception):
    def __init__(self, code: str, what: str):
        super().__init__(what)
        self.code, self.what = code, what


@dataclass
class LLMAssessor:
    """Callable like `assess`: bundle -> Assessment. After each call `issues` holds the
    OperationOutcome issues of that call and `audit` what decided (model, prompt, cache, fallback).
    `patient_terms`: the patient's identifiers and names to redact besides the id (`patient_terms`
    of core.redaction, from the record's Patient resource)."""

    settings: Settings
    thresholds: Thresholds | None = None
    patient_terms: tuple[str, ...] = ()
    client: httpx.Client | None = None
    issues: list[Issue] = field(default_factory=list)
    audit: dict[str, Any] = field(default_factory=dict)

    def __call__(self, bundle: EvidenceBundle) -> Assessment:
        s = self.settings
        model = s.llm_model or ""
        key = cache_key(bundle, model, self.patient_terms)
        self.issues = []
        self.audit = {"assessor": "llm", "model": model, "prompt": _prompt_hash()[:16], "cached": False}
        reply = self._cached(key)
        if reply is not None:
            self.audit["cached"] = True
        else:
            try:
                reply = self._ask(bundle, model)
            except _Failure as failure:
                self.issues.append(Issue(
                    "warning", failure.code,
                    f"LLM assessor {failure.what}; the deterministic assessor decided this verdict",
                ))
                self.audit = {**self.audit, "assessor": "deterministic", "fallback": failure.what}
                return assess(bundle, self.thresholds)
            self._store(key, reply)
        return _score_judgments(bundle, reply, self.thresholds, self.patient_terms)

    def _ask(self, bundle: EvidenceBundle, model: str) -> _Reply:
        s = self.settings
        body = {
            "model": model,
            "messages": [
                {"role": "system", "content": prompt_text()},
                {"role": "user", "content": orjson.dumps(bundle_payload(bundle, self.patient_terms)).decode()},
            ],
            "temperature": 0,
            "top_p": 1,
            "n": 1,
            "seed": SEED,
            "response_format": {"type": "json_object"},
        }
        headers = {"Content-Type": "application/json"}
        if s.llm_api_key is not None:
            headers["Authorization"] = f"Bearer {s.llm_api_key.get_secret_value()}"
        url = (s.llm_base_url or "").rstrip("/") + "/chat/completions"
        client = self.client or httpx.Client(timeout=httpx.Timeout(s.llm_timeout_seconds))
        try:
            resp = client.post(url, content=orjson.dumps(body), headers=headers, timeout=s.llm_timeout_seconds)
        except httpx.TimeoutException as e:
            raise _Failure("timeout", "timed out") from e
        except httpx.HTTPError as e:
            raise _Failure("transient", "could not be reached") from e
        finally:
            if self.client is None:
                client.close()
        if resp.status_code != 200:
            raise _Failure("transient", f"answered HTTP {resp.status_code}")
        try:
            content = resp.json()["choices"][0]["message"]["content"]
            return _Reply.model_validate(orjson.loads(_strip_fences(content)))
        except (ValueError, KeyError, IndexError, TypeError, ValidationError) as e:
            raise _Failure("exception", "gave an invalid reply") from e

    def _path(self, key: str) -> Path | None:
        d = self.settings.cache_dir
        return d / "llm_assessor" / f"{key}.json" if d is not None else None

    def _cached(self, key: str) -> _Reply | None:
        if key in _memory:
            _memory.move_to_end(key)
            return _memory[key]
        path = self._path(key)
        if path is None or not path.is_file():
            return None
        try:
            reply = _Reply.model_validate(orjson.loads(path.read_bytes())["reply"])
        except (OSError, ValueError, KeyError, TypeError, ValidationError):
            return None  # unreadable entry: ask again and overwrite
        _remember(key, reply)
        return reply

    def _store(self, key: str, reply: _Reply) -> None:
        _remember(key, reply)
        path = self._path(key)
        if path is None:
            return
        entry = {"model": self.settings.llm_model, "prompt": _prompt_hash(), "reply": reply.model_dump()}
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
            with os.fdopen(fd, "wb") as f:
                f.write(orjson.dumps(entry))
            os.replace(tmp, path)
        except OSError:
            pass  # a read-only cache only costs a repeated request


def cache_key(bundle: EvidenceBundle, model: str, patient_terms: tuple[str, ...] = ()) -> str:
    # the redacted terms shape the payload, so they are part of what was asked
    parts = [bundle.hash, model, _prompt_hash(), str(SEED), PAYLOAD_VERSION, *sorted(patient_terms)]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


def _remember(key: str, reply: _Reply) -> None:
    _memory[key] = reply
    _memory.move_to_end(key)
    while len(_memory) > _MEMORY_CACHE_SIZE:
        _memory.popitem(last=False)


def _strip_fences(content: str) -> str:
    text = content.strip()
    if text.startswith("```"):
        text = text.split("\n", 1)[1] if "\n" in text else ""
        text = text.rsplit("```", 1)[0]
    return text
