"""Start-up warming: `run` builds the note pipeline before the socket accepts; tests and embedding
(warm=False, the default) build nothing until the first hook request."""

from __future__ import annotations

from typing import Any, ClassVar

import medeventgraph.nlp
import pytest
from fastapi.testclient import TestClient
from medeventgraph.cds_hooks import create_app
from medeventgraph.cds_hooks.engine import Engine
from medeventgraph.model.settings import Settings


class _CountingPipeline:
    """Stands in for NotePipeline: counts how often it is built and warmed."""

    built: ClassVar[list[dict[str, Any]]] = []
    warmed: ClassVar[int] = 0

    def __init__(self, **kwargs: Any) -> None:
        type(self).built.append(kwargs)

    def warm(self) -> None:
        type(self).warmed += 1


@pytest.fixture()
def counting(monkeypatch: pytest.MonkeyPatch) -> type[_CountingPipeline]:
    _CountingPipeline.built, _CountingPipeline.warmed = [], 0
    monkeypatch.setattr(medeventgraph.nlp, "NotePipeline", _CountingPipeline)
    return _CountingPipeline


def _settings(**kw: Any) -> Settings:
    return Settings(jwt_required=False, public_base_url="http://testserver", **kw)


def test_warm_start_builds_and_warms_the_pipeline_once_before_any_request(counting):
    app = create_app(_settings(), warm=True)
    with TestClient(app) as http:  # entering runs the lifespan's start-up
        assert (len(counting.built), counting.warmed) == (1, 1)
        assert http.get("/cds-services").status_code == 200
        assert app.state.meg.engine.note_pipeline() is not None
    assert (len(counting.built), counting.warmed) == (1, 1)


def test_default_start_builds_nothing(counting):
    app = create_app(_settings())
    with TestClient(app) as http:
        assert http.get("/cds-services").status_code == 200
    assert (len(counting.built), counting.warmed) == (0, 0)


def test_warm_with_notes_off_builds_no_pipeline(counting):
    engine = Engine(_settings(notes=False))
    engine.warm()
    assert engine.note_pipeline() is None
    assert (len(counting.built), counting.warmed) == (0, 0)


def test_plugin_service_passes_warm_through(counting):
    from medeventgraph.app import create_app as create_service

    with TestClient(create_service(_settings(), warm=True)):
        assert (len(counting.built), counting.warmed) == (1, 1)


def test_serving_raises_the_young_gc_threshold_and_restores_it(counting):
    import gc

    from medeventgraph.cds_hooks.app import SERVING_GC_YOUNG_THRESHOLD

    before = gc.get_threshold()
    assert before[0] != SERVING_GC_YOUNG_THRESHOLD
    with TestClient(create_app(_settings(), warm=True)):
        assert gc.get_threshold() == (SERVING_GC_YOUNG_THRESHOLD, *before[1:])
    assert gc.get_threshold() == before
    with TestClient(create_app(_settings())):  # tests and embedding leave the host's collector alone
        assert gc.get_threshold() == before
