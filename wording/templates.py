"""The wording templates (resources/wording.json) as a typed, validated model.

A template key is `label`, `label/failure`, `label/failure/variant` or `label//variant`; the
most specific one that exists is used. Loading checks that every label has a fallback and that
every placeholder a template names is one the wording module fills.
"""

from __future__ import annotations

import string
from functools import lru_cache
from pathlib import Path

import orjson
from medeventgraph.model.packaged import packaged_model
from pydantic import BaseModel, ConfigDict, Field, model_validator

__all__ = ["PLACEHOLDERS", "Template", "Wording", "load_wording", "template_keys"]

LABELS = ("supported", "conflicting", "refuted", "insufficient")

# Every name a template may use; medeventgraph.wording.summary fills each one.
PLACEHOLDERS = frozenset({
    "first", "second", "first_s", "second_s", "first_date", "second_date", "dates",
    "gap_after", "gap_before", "gap_later", "window", "window_words", "window_ok",
    "window_clause", "window_after", "window_before", "counter_date", "counter_day",
    "first_on", "second_on", "first_last_on", "second_first_on", "other_on",
    "first_last_label", "first_last_day", "first_last_date", "second_first_day", "second_first_date",
    "denied", "denied_s", "other", "other_s", "other_date", "denied_rel",
    "relation_words", "scope", "scope_short", "scope_clause",
    "chain_s", "chain_dated", "ordered_steps", "note_basis",
    "first_documented", "second_documented", "pair_documented",
})


class Template(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    summary: str = Field(min_length=1, max_length=200)
    checked: str = Field(min_length=1, max_length=400)


class Wording(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    version: int
    about: str = ""
    short_names: dict[str, str] = Field(default_factory=dict)
    resource_labels: dict[str, str] = Field(default_factory=dict)
    assertion_words: dict[str, str] = Field(default_factory=dict)
    scope_words: dict[str, str]
    group_titles: dict[str, str]
    encounter_classes: dict[str, str] = Field(default_factory=dict)
    label_words: dict[str, str] = Field(default_factory=dict)
    # A finding computed from values (core.index.derive), named by its rule id; the default wraps
    # the rule's display as {finding}. Never "documented": nobody documented it.
    computed_names: dict[str, str] = Field(default_factory=dict)
    computed_default: str = Field(default="{finding}, computed from results", min_length=1, max_length=120)
    documented_word: str = " documented"
    # What a banner says when the EHR's record does not name the patient or the encounter:
    # neutral words, never a resource id.
    unnamed: dict[str, str] = Field(default_factory=lambda: {"patient": "this patient", "encounter": "this encounter"})
    templates: dict[str, Template]

    @model_validator(mode="after")
    def _complete(self) -> Wording:
        for label in LABELS:
            if label not in self.templates:
                raise ValueError(f"wording: no fallback template for {label!r}")
        for key, tpl in self.templates.items():
            if key.split("/", 1)[0] not in LABELS:
                raise ValueError(f"wording: template {key!r} names no verdict label")
            for text in (tpl.summary, tpl.checked):
                names = {f for _, f, _, _ in string.Formatter().parse(text) if f}
                if unknown := names - PLACEHOLDERS:
                    raise ValueError(f"wording: template {key!r} uses unknown placeholders {sorted(unknown)}")
        names = {f for _, f, _, _ in string.Formatter().parse(self.computed_default) if f}
        if names != {"finding"}:
            raise ValueError(f"wording: computed_default must use exactly {{finding}}, not {sorted(names)}")
        for key in ("patient", "encounter"):
            if not self.unnamed.get(key):
                raise ValueError(f"wording: unnamed lacks {key!r}")
        for key in ("encounter", "episode", "patient"):
            if key not in self.scope_words:
                raise ValueError(f"wording: scope_words lacks {key!r}")
        return self

    def template_for(self, label: str, failure: str | None, variant: str | None) -> tuple[str, Template]:
        f = failure or ""
        keys = [f"{label}/{f}/{variant}" if variant else None, f"{label}/{f}" if f else None,
                f"{label}//{variant}" if variant else None, label]
        key = next(k for k in keys if k and k in self.templates)
        return key, self.templates[key]

    def short(self, name: str) -> str:
        return self.short_names.get(name.lower(), name)


def template_keys(wording: Wording) -> list[str]:
    return sorted(wording.templates)


def load_wording(path: Path | None = None) -> Wording:
    if path is not None:
        return Wording.model_validate(orjson.loads(Path(path).read_bytes()))
    return _packaged()


@lru_cache(maxsize=1)
def _packaged() -> Wording:
    return packaged_model("medeventgraph.wording", "wording.json", Wording)
