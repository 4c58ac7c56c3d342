"""NotePipeline.warm runs every part once without leaving anything behind that a result reads."""

from __future__ import annotations

from medeventgraph.nlp import TargetTerm

from .conftest import make_note


def test_warm_leaves_the_note_cache_the_matchers_and_the_time_cache_as_they_were(pipeline):
    pipeline.mentions([make_note("No fever on 03/01/2020.", "warm-before")], [TargetTerm("fever", "fever")])
    cache = (len(pipeline.cache), pipeline.cache.texts(), pipeline.cache.stats.as_dict())
    matchers = list(pipeline._matchers)
    times = pipeline.time_finder.find_all.cache_info()
    pipeline.warm()
    assert (len(pipeline.cache), pipeline.cache.texts(), pipeline.cache.stats.as_dict()) == cache
    assert list(pipeline._matchers) == matchers
    after = pipeline.time_finder.find_all.cache_info()
    assert (after.currsize, after.hits, after.misses) == (times.currsize, times.hits, times.misses)


def test_mentions_are_the_same_after_warm(pipeline):
    note = make_note("HPI: Denies chest pain.\nSeen 2 days ago for acute kidney injury.", "warm-same")
    terms = [TargetTerm("chest pain", "chest pain"), TargetTerm("acute kidney injury", "acute kidney injury")]
    before = pipeline.mentions([note], terms)
    pipeline.cache.clear()
    pipeline.warm()
    assert pipeline.mentions([note], terms) == before
