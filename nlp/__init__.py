"""Note text -> note-mention Occurrences: medspaCy targets, ConText, sections, spans, note dates.

Depends only on the plain data types of `medeventgraph.model.occurrence` (never on core).

Examples
--------
>>> from medeventgraph.nlp import NotePipeline, TargetTerm      # doctest: +SKIP
>>> pipeline = NotePipeline()                                   # doctest: +SKIP
>>> pipeline.mentions(documents, [TargetTerm("AKI", "acute kidney injury")])  # doctest: +SKIP
"""

from __future__ import annotations

from .dates import TimeMention, find_times, resolve_relative
from .pipeline import DEFAULT_SPLITTER, NotePipeline, NoteSentence
from .targets import TargetTerm, terms_from_display

__all__ = [
    "DEFAULT_SPLITTER",
    "NotePipeline",
    "NoteSentence",
    "TargetTerm",
    "TimeMention",
    "find_times",
    "resolve_relative",
    "terms_from_display",
]
