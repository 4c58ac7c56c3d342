"""Fixtures for the SMART launch tests: the real Medplum FHIR server (from tests/cds_hooks), a
loopback SMART EHR in front of it (tests/smart/ehr.py), and the real service under uvicorn.
A `Browser` drives the launch over HTTP with httpx, following redirects by hand."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from fastapi import FastAPI
from medeventgraph.app import create_app, serving
from medeventgraph.model.settings import Settings

from ..cds_hooks.conftest import assert_outcome
from .ehr import FakeEhr

CLIENT_ID = "medeventgraph-test"
LANCE = "716c6d0a-2a5d-0aaa-9ced-312ed6a943da"
LANCE_ENCOUNTER = "716c6d0a-2a5d-0aaa-b305-d6399271a23d"

__all__ = ["CLIENT_ID", "LANCE", "LANCE_ENCOUNTER", "Browser", "Service", "assert_outcome"]


@pytest.fixture(scope="session")
def ehr(fhir_server: str) -> Iterator[FakeEhr]:
    fake = FakeEhr(upstream=fhir_server, client_id=CLIENT_ID)

    def make(base: str) -> FastAPI:
        fake.base = base
        return fake.app()

    with serving(make):
        yield fake


@pytest.fixture()
def id_token_mode(ehr: FakeEhr) -> Iterator[Any]:
    """Set how the EHR signs its next id_tokens; restored after the test."""
    def set_mode(mode: str) -> None:
        ehr.id_token_mode = mode

    yield set_mode
    ehr.id_token_mode = "good"


@dataclass
class Service:
    base: str
    app: FastAPI
    settings: Settings
    ehr: FakeEhr

    def browser(self) -> Browser:
        return Browser(self, httpx.Client(timeout=120, follow_redirects=False))


@contextmanager
def _serve_smart(ehr: FakeEhr, **overrides: Any) -> Iterator[Service]:
    holder: dict[str, Settings] = {}

    def make(base: str) -> FastAPI:
        # A shared 2-core machine can be slow: generous bounds unless a test sets its own.
        settings = {"fhir_timeout_seconds": 120, "request_deadline_seconds": 600, **overrides}
        holder["s"] = Settings(public_base_url=base, smart_allowed_issuers=[ehr.fhir_base + "/"],
                               smart_client_id=CLIENT_ID, jwt_required=True, **settings)
        return create_app(holder["s"])

    with serving(make) as (base, app):
        yield Service(base, app, holder["s"], ehr)


@pytest.fixture(scope="session")
def smart_service(ehr: FakeEhr) -> Iterator[Service]:
    with _serve_smart(ehr) as service:
        yield service


@pytest.fixture()
def start_smart_service(ehr: FakeEhr) -> Iterator[Any]:
    """Another SMART service with other settings (torn down after the test)."""
    with ExitStack() as stack:
        yield lambda **overrides: stack.enter_context(_serve_smart(ehr, **overrides))


@dataclass
class Browser:
    """A browser without JavaScript: a cookie jar and hand-followed redirects."""

    service: Service
    http: httpx.Client
    csrf: str | None = None
    page: str = ""

    def launch(self, patient: str = LANCE, encounter: str | None = LANCE_ENCOUNTER,
               app_context: str | None = None) -> httpx.Response:
        launch_id = self.service.ehr.launch(patient, encounter, app_context)
        return self.http.get(f"{self.service.base}/smart/launch",
                             params={"iss": self.service.ehr.fhir_base, "launch": launch_id})

    def authorize(self, launch_resp: httpx.Response, **tamper: str) -> httpx.Response:
        assert launch_resp.status_code == 302, launch_resp.text
        url = launch_resp.headers["location"]
        if tamper:
            parts = urlsplit(url)
            params = {k: v[0] for k, v in parse_qs(parts.query).items()} | tamper
            return self.http.get(f"{parts.scheme}://{parts.netloc}{parts.path}", params=params)
        return self.http.get(url)

    def callback(self, authorize_resp: httpx.Response) -> httpx.Response:
        assert authorize_resp.status_code == 302, authorize_resp.text
        return self.http.get(authorize_resp.headers["location"])

    def open_app(self, callback_resp: httpx.Response) -> httpx.Response:
        assert callback_resp.status_code == 303, callback_resp.text
        resp = self.http.get(str(callback_resp.url.join(callback_resp.headers["location"])))
        if resp.status_code == 200:
            self.page = resp.text
            self.csrf = page_context(resp.text)["csrf_token"]
        return resp

    def login(self, patient: str = LANCE, encounter: str | None = LANCE_ENCOUNTER,
              app_context: str | None = None) -> Browser:
        resp = self.open_app(self.callback(self.authorize(self.launch(patient, encounter, app_context))))
        assert resp.status_code == 200, resp.text
        return self

    def verify(self, body: dict[str, Any], *, csrf: str | None | bool = True) -> httpx.Response:
        headers = {}
        token = self.csrf if csrf is True else csrf
        if token:
            headers["X-CSRF-Token"] = token
        return self.http.post(f"{self.service.base}/smart/api/verify", json=body, headers=headers)


def page_context(html: str) -> dict[str, Any]:
    m = re.search(r'<script type="application/json" id="meg-context">(.*?)</script>', html, re.DOTALL)
    assert m, "page has no context block"
    return json.loads(m.group(1))
