"""Invalid Unicode (a lone UTF-16 surrogate) anywhere in a resource of any mapped type, sent to
any hook over loopback HTTP, is a 400 OperationOutcome naming the resource and the rule, never a
500 (issue 22); a note whose charset decodes to one is read with it replaced.

MEG_FUZZ_EXAMPLES=2000 runs a longer search.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from medeventgraph.cds_hooks.engine import Engine
from medeventgraph.cds_hooks.errors import HookError
from medeventgraph.cds_hooks.models import HookRequest
from medeventgraph.cds_hooks.prefetch import PATIENT_PREFETCH, gather
from medeventgraph.cds_hooks.services import ORDER_SELECT, ORDER_SIGN, PATIENT_VIEW, VERIFY
from medeventgraph.model.outcome import Issue
from medeventgraph.model.settings import Settings

from .conftest import Running
from .mapped_resources import mapped_resources, string_places, with_surrogate
from .synthea import PREFETCH_TYPES

EXAMPLES = int(os.environ.get("MEG_FUZZ_EXAMPLES", "40"))
PID = "fz-1"
RESOURCES = mapped_resources(PID)
# prefetch key of each type; the types no template asks for (EpisodeOfCare, Immunization,
# AllergyIntolerance) ride in the encounters Bundle, as an EHR's _include would send them
KEY_OF = {rtype: key for key, rtype in PREFETCH_TYPES.items()}
HOOKS = {VERIFY: "medeventgraph-verify", PATIENT_VIEW: "patient-view", ORDER_SELECT: "order-select",
         ORDER_SIGN: "order-sign"}
QUERY = {"id": "q", "events": [{"id": "e0", "text": "vancomycin", "kind": "medication"},
                               {"id": "e1", "text": "acute kidney injury", "kind": "condition"}],
         "relations": [{"from": "e0", "to": "e1", "type": "before", "within": "P7D"}]}
DRAFT = {"resourceType": "Bundle", "entry": [{"resource": {
    "resourceType": "MedicationRequest", "id": "d1", "status": "draft", "intent": "order",
    "subject": {"reference": f"Patient/{PID}"}, "medicationCodeableConcept": {"text": "vancomycin"}}}]}


def _body(service: str, resources: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The hook request with `resources` (by their type as sent, damaged or not) prefetched."""
    prefetch: dict[str, Any] = {key: {"resourceType": "Bundle", "type": "searchset", "entry": []}
                                for key in PATIENT_PREFETCH}
    prefetch["patient"] = {"resourceType": "Patient", "id": PID}
    for rtype, res in resources.items():
        prefetch[KEY_OF.get(rtype, "encounters")]["entry"].append({"resource": res})
    context: dict[str, Any] = {"patientId": PID}
    if service == VERIFY:
        context["query"] = QUERY
    if service in (ORDER_SELECT, ORDER_SIGN):
        context.update(draftOrders=DRAFT, selections=["MedicationRequest/d1"])
    return {"hook": HOOKS[service], "hookInstance": "unicode", "context": context, "prefetch": prefetch}


def _post(service: Running, http: httpx.Client, name: str, body: dict[str, Any]) -> httpx.Response:
    url = service.url(name)
    # json.dumps (not orjson): lone surrogates go out as \ud800 escapes, as a client would send them
    return http.post(url, content=json.dumps(body), headers={
        "Authorization": f"Bearer {service.keys.token(url)}", "Content-Type": "application/json"})


def _expected_name(rtype: str, path: tuple[Any, ...], in_value: bool) -> str:
    res = RESOURCES[rtype]
    if path == ("resourceType",):
        return "prefetch resource #"  # a type that is no longer a FHIR type is not echoed
    if path == ("id",):
        return f"prefetch resource {rtype} #"  # nor an id that is no longer a FHIR id (or is gone)
    return f"prefetch resource {rtype}/{res['id']}: "


def _assert_named(issue: Issue | dict[str, Any], rtype: str, path: tuple[Any, ...], in_value: bool) -> None:
    code, diagnostics = (issue.code, issue.diagnostics) if isinstance(issue, Issue) else (
        issue["code"], issue["diagnostics"])
    assert code == "value" and "string is not valid Unicode (lone UTF-16 surrogate)" in diagnostics
    assert diagnostics.startswith(_expected_name(rtype, path, in_value)), (path, diagnostics)


def _assert_refused(resp: httpx.Response, rtype: str, path: tuple[Any, ...], in_value: bool) -> None:
    resp.content.decode("utf-8")  # the answer itself is valid UTF-8
    assert resp.status_code == 400, (rtype, path, resp.text)
    [issue] = resp.json()["issue"]
    _assert_named(issue, rtype, path, in_value)


@pytest.fixture(scope="module")
def one_connection():
    with httpx.Client(timeout=300, limits=httpx.Limits(max_connections=1, max_keepalive_connections=1)) as http:
        yield http


PLACES = [(rtype, path, in_value) for rtype, res in RESOURCES.items() for path, in_value in string_places(res)]
# A surrogate in the key `resourceType` leaves an entry with no resource in it, read as nothing
# (answered 200: test_an_entry_whose_resource_type_key_is_damaged_is_read_as_nothing).
REFUSED = [place for place in PLACES if place[1:] != (("resourceType",), False)]


@st.composite
def damaged(draw: st.DrawFn) -> tuple[str, str, tuple[Any, ...], bool, dict[str, Any]]:
    rtype, path, in_value = draw(st.sampled_from(REFUSED))
    char = chr(draw(st.integers(0xD800, 0xDFFF)))
    res = with_surrogate(RESOURCES[rtype], path, in_value, char, draw(st.integers(0, 40)))
    return draw(st.sampled_from(list(HOOKS))), rtype, path, in_value, res


def test_a_surrogate_in_any_string_of_any_mapped_resource_is_a_400(service: Running, one_connection: httpx.Client):
    assert set(RESOURCES) == {rtype for rtype, _, _ in REFUSED}

    @settings(max_examples=EXAMPLES, deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(damaged())
    def check(case: tuple[str, str, tuple[Any, ...], bool, dict[str, Any]]) -> None:
        name, rtype, path, in_value, res = case
        # beside well-formed resources of two other types, which do not change the answer
        others = {t: RESOURCES[t] for t in ("Observation", "MedicationAdministration", "Condition") if t != rtype}
        resp = _post(service, one_connection, name, _body(name, {**others, rtype: res}))
        _assert_refused(resp, rtype, path, in_value)

    check()


def test_every_string_field_of_every_mapped_type():
    """Exhaustive, one field at a time, through the route's own steps (gather, then the index
    the engine would build) without HTTP: each distinct element path (list items taken once),
    in its value and in its key."""
    engine = Engine(Settings())
    fields: dict[tuple[Any, ...], tuple[str, tuple[Any, ...], bool]] = {}
    for rtype, path, in_value in REFUSED:
        fields.setdefault((rtype, in_value, *("[]" if isinstance(p, int) else p for p in path)), (rtype, path, in_value))

    async def gathered(rtype: str, path: tuple[Any, ...], in_value: bool, http: httpx.AsyncClient) -> Any:
        request = HookRequest.model_validate(_body(VERIFY, {rtype: with_surrogate(RESOURCES[rtype], path, in_value)}))
        return await gather(request, PATIENT_PREFETCH, engine.settings, http)

    async def each() -> list[tuple[str, tuple[Any, ...], bool, Any]]:
        async with httpx.AsyncClient() as http:
            return [(*place, await gathered(*place, http)) for place in fields.values()]

    try:
        for rtype, path, in_value, data in asyncio.run(each()):
            with pytest.raises(HookError) as refused:
                engine.index_for(PID, data, "test")
            assert refused.value.status == 400
            _assert_named(refused.value.issue, rtype, path, in_value)
    finally:
        engine.close()
    assert len(fields) > 600


@pytest.mark.parametrize("rtype", list(RESOURCES))
def test_a_resource_type_that_is_not_valid_unicode_is_not_echoed(service: Running, one_connection: httpx.Client,
                                                                  rtype: str):
    res = with_surrogate(RESOURCES[rtype], ("resourceType",), True, "\udfff", 3)
    _assert_refused(_post(service, one_connection, VERIFY, _body(VERIFY, {rtype: res})), rtype, ("resourceType",), True)


def test_an_entry_whose_resource_type_key_is_damaged_is_read_as_nothing(service: Running,
                                                                         one_connection: httpx.Client):
    res = with_surrogate(RESOURCES["Condition"], ("resourceType",), False)
    resp = _post(service, one_connection, VERIFY, _body(VERIFY, {"Condition": res}))
    assert resp.status_code == 200, resp.text


def _note(charset: str, raw: bytes) -> dict[str, Any]:
    return {"resourceType": "DocumentReference", "id": "n1", "status": "current",
            "subject": {"reference": f"Patient/{PID}"}, "date": "2020-01-05T10:00:00Z",
            "content": [{"attachment": {"contentType": f"text/plain; charset={charset}",
                                        "data": base64.b64encode(raw).decode()}}]}


@pytest.mark.parametrize(("charset", "raw"), [
    ("utf-7", b"Acute kidney injury +2AA- after vancomycin."),  # UTF-7 of a lone surrogate
    ("unicode_escape", b"Acute kidney injury \\udfff after vancomycin."),
    ("zlib_codec", b"x\x9c\xcbH\xcd\xc9\xc9\x07\x00\x06,\x02\x15"),  # a bytes-to-bytes codec is no charset
])
def test_a_note_whose_charset_gives_invalid_unicode_is_read(service: Running, one_connection: httpx.Client,
                                                            charset: str, raw: bytes):
    body = _body(VERIFY, {"MedicationAdministration": RESOURCES["MedicationAdministration"],
                          "DocumentReference": _note(charset, raw)})
    resp = _post(service, one_connection, VERIFY, body)
    assert resp.status_code == 200, resp.text
    assert isinstance(resp.json()["cards"], list)


def test_a_paging_link_that_is_not_valid_unicode_names_the_bundle(service: Running, one_connection: httpx.Client):
    body = _body(VERIFY, {"Observation": RESOURCES["Observation"]})
    body["prefetch"]["observations"]["link"] = [{"relation": "next", "url": "https://ehr.example/Observation?p=\udc80"}]
    body.update(fhirServer="https://ehr.example", fhirAuthorization={"access_token": "t", "token_type": "Bearer"})
    resp = _post(service, one_connection, VERIFY, body)
    assert resp.status_code == 400, resp.text
    [issue] = resp.json()["issue"]
    assert issue["diagnostics"] == ("prefetch observations: Bundle: string is not valid Unicode "
                                    "(lone UTF-16 surrogate) at link[0].url")


def test_a_question_that_is_not_valid_unicode(service: Running, one_connection: httpx.Client):
    body = _body(VERIFY, {})
    body["context"]["query"] = "Was vancomycin given before acute kidney injury\ud83d?"
    resp = _post(service, one_connection, VERIFY, body)
    assert resp.status_code == 400 and "context.query" in resp.json()["issue"][0]["diagnostics"], resp.text


class _Pages(BaseHTTPRequestHandler):
    """A FHIR server whose Observation search page links a next page by a URL holding a lone
    surrogate (sent as a JSON escape, as a server's JSON library may)."""

    def do_GET(self) -> None:
        if self.path.startswith("/Observation"):
            page = {"resourceType": "Bundle", "type": "searchset", "entry": [{"resource": RESOURCES["Observation"]}],
                    "link": [{"relation": "next", "url": f"{self.server.base}/Observation?page=2\udc80"}]}  # type: ignore[attr-defined]
            body = json.dumps(page).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/fhir+json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        else:
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture()
def paging_server() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Pages)
    server.base = f"http://127.0.0.1:{server.server_address[1]}"  # type: ignore[attr-defined]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.base  # type: ignore[attr-defined]
    finally:
        server.shutdown()
        server.server_close()


def test_a_fetched_page_linking_a_url_that_is_not_valid_unicode_is_a_412(service: Running, paging_server: str):
    body = _body(VERIFY, {})
    del body["prefetch"]["observations"]  # fetched from fhirServer instead
    body.update(fhirServer=paging_server, fhirAuthorization={"access_token": "t", "token_type": "Bearer"})
    resp = service.post(VERIFY, json.dumps(body))
    assert resp.status_code == 412, resp.text
    assert resp.json()["issue"][0]["diagnostics"] == ("prefetch observations could not be fetched: "
                                                      "a search page link is not a valid URL")
