"""The request size limit, over raw loopback sockets and a keep-alive httpx client: a body over
`max_request_bytes` is refused 413 (OperationOutcome) while it is being sent, before the JWT is
looked at; chunked bodies too; the 413 closes the connection without losing the answer to a
client still sending; and the service stays healthy."""

from __future__ import annotations

import json
import re
import select
import socket
from urllib.parse import urlsplit

import httpx
import pytest
from medeventgraph.cds_hooks.services import VERIFY
from medeventgraph.model.settings import Settings

from .conftest import Running, _serve
from .test_auth import minimal_body

LIMIT = 1_000_000


@pytest.fixture(scope="module")
def small(keys, tmp_path_factory):
    with _serve({"trusted_issuers_file": keys.trust_file, "max_request_bytes": LIMIT,
                 "request_deadline_seconds": 600}) as (base, app, settings), \
            httpx.Client(timeout=120) as http:
        yield Running(base, app, settings, keys, http)


def _send(url: str, head: dict[str, str], chunks, *, chunked: bool) -> tuple[int, dict, int]:
    """POST the body chunks until the server answers; (status, JSON body, body bytes sent by then)."""
    parts = urlsplit(url)
    lines = [f"POST {parts.path} HTTP/1.1", f"Host: {parts.netloc}", "Content-Type: application/json",
             *(f"{k}: {v}" for k, v in head.items()), *(["Transfer-Encoding: chunked"] if chunked else [])]
    answer, sent = b"", 0
    with socket.create_connection((parts.hostname, parts.port), timeout=60) as sock:
        sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        frames = ((f"{len(c):x}\r\n".encode() + c + b"\r\n") if chunked else c for c in chunks)
        tail = [b"0\r\n\r\n"] if chunked else []
        try:
            for frame in [*frames, *tail]:
                view = memoryview(frame)
                while view and b"\r\n\r\n" not in answer:
                    readable, writable, _ = select.select([sock], [sock], [], 60)
                    if readable:
                        answer += sock.recv(65536) or b"\r\n\r\n"
                    elif writable:
                        view = view[sock.send(view):]
                if b"\r\n\r\n" in answer:
                    break
                sent += len(frame)
        except (BrokenPipeError, ConnectionResetError):
            pass
        while not _complete(answer):
            got = sock.recv(65536)
            if not got:
                break
            answer += got
    head_end = answer.find(b"\r\n\r\n")
    return int(answer.split(b" ", 2)[1]), json.loads(answer[head_end + 4:]), sent


def _complete(answer: bytes) -> bool:
    head_end = answer.find(b"\r\n\r\n")
    if head_end < 0:
        return False
    header = answer[:head_end].decode().lower()
    length = int(re.search(r"content-length:\s*(\d+)", header).group(1))
    return len(answer) >= head_end + 4 + length


def _chunks(total: int, size: int = 64 * 1024):
    sent = 0
    while sent < total:
        n = min(size, total - sent)
        yield b" " * n
        sent += n


def _assert_413(status: int, body: dict) -> None:
    assert status == 413
    assert body["resourceType"] == "OperationOutcome"
    assert "max_request_bytes" in body["issue"][0]["diagnostics"]


def test_default_limit_is_8_mib():
    assert Settings().max_request_bytes == 8 * 1024 * 1024


@pytest.mark.parametrize("auth", ["valid", "garbage", "none"])
def test_declared_length_over_the_limit_is_refused_before_the_body_and_the_jwt(small, auth):
    token = small.keys.token(small.url(VERIFY))
    head = {"Content-Length": str(50 * 1024 * 1024)}
    if auth != "none":
        head["Authorization"] = f"Bearer {token if auth == 'valid' else 'garbage'}"
    status, body, sent = _send(small.url(VERIFY), head, _chunks(50 * 1024 * 1024), chunked=False)
    _assert_413(status, body)
    assert sent < 10 * LIMIT  # answered long before the 50 MB were sent
    if auth == "valid":  # the JWT was never processed: its jti is still unused
        resp = small.post(VERIFY, minimal_body(), token=token)
        assert resp.status_code == 200, resp.text


def test_chunked_body_over_the_limit_is_refused_while_reading(small):
    token = small.keys.token(small.url(VERIFY))
    status, body, sent = _send(small.url(VERIFY), {"Authorization": f"Bearer {token}"},
                               _chunks(40 * LIMIT), chunked=True)
    _assert_413(status, body)
    assert sent < 10 * LIMIT
    resp = small.post(VERIFY, minimal_body(), token=token)
    assert resp.status_code == 200, resp.text


def test_a_body_under_the_limit_passes_chunked_or_not(small):
    payload = json.dumps(minimal_body()).encode() + b" " * (LIMIT - 50_000)
    for chunked in (False, True):
        head = {"Authorization": f"Bearer {small.keys.token(small.url(VERIFY))}"}
        if not chunked:
            head["Content-Length"] = str(len(payload))
        pieces = [payload[i:i + 65536] for i in range(0, len(payload), 65536)]
        status, body, _ = _send(small.url(VERIFY), head, pieces, chunked=chunked)
        assert status == 200, body


def test_the_default_limit_refuses_9_mib_and_the_service_stays_healthy(service):
    token = service.keys.token(service.url(VERIFY))
    status, body, _ = _send(service.url(VERIFY), {"Authorization": f"Bearer {token}"},
                            _chunks(9 * 1024 * 1024), chunked=True)
    _assert_413(status, body)
    assert service.http.get(service.url()).status_code == 200
    assert service.post(VERIFY, minimal_body()).status_code == 200


def _assert_closing_413(resp: httpx.Response) -> None:
    _assert_413(resp.status_code, resp.json())
    assert resp.headers["connection"] == "close"


@pytest.mark.parametrize("chunked", [False, True])
def test_a_keep_alive_client_gets_every_413_and_its_next_call_answered(small, chunked):
    """httpx writes the whole body before it reads: the refusal must neither hang it nor reset
    the connection under the 413 (what the soak saw as calls with no answer)."""
    body = b" " * (3 * LIMIT)
    with httpx.Client(timeout=60) as http:
        for _ in range(5):
            head = {"Authorization": f"Bearer {small.keys.token(small.url(VERIFY))}", "Content-Type": "application/json"}
            content = body if not chunked else (body[i:i + 65536] for i in range(0, len(body), 65536))
            _assert_closing_413(http.post(small.url(VERIFY), content=content, headers=head))
            head["Authorization"] = f"Bearer {small.keys.token(small.url(VERIFY))}"
            ok = http.post(small.url(VERIFY), content=json.dumps(minimal_body()), headers=head)
            assert ok.status_code == 200, ok.text


def test_a_client_that_sends_the_whole_body_before_reading_still_reads_the_413(small):
    """Write all of a declared 3-limit body, then read: the service reads and drops the rest of
    the body before it closes, so nothing resets the connection under the answer."""
    parts = urlsplit(small.url(VERIFY))
    head = (f"POST {parts.path} HTTP/1.1\r\nHost: {parts.netloc}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {3 * LIMIT}\r\n\r\n").encode()
    with socket.create_connection((parts.hostname, parts.port), timeout=60) as sock:
        sock.sendall(head)
        sock.sendall(b" " * (3 * LIMIT))  # a reset here (or below) is the bug
        answer = b""
        while got := sock.recv(65536):
            answer += got  # to the end: the server closes the connection after the 413
    head_end = answer.find(b"\r\n\r\n")
    assert b"connection: close" in answer[:head_end].lower()
    _assert_413(int(answer.split(b" ", 2)[1]), json.loads(answer[head_end + 4:]))
