"""App assembly: the CDS Hooks service with the SMART launch page, and `medeventgraph serve`.

Both surfaces share one ServiceState (settings, HTTP client, the index cache and the note
pipeline), so a chart opened in the SMART page reuses the index its hooks already built.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from fastapi import FastAPI
from medeventgraph.model.settings import Settings

__all__ = ["create_app", "run", "serving"]


def create_app(settings: Settings, *, warm: bool = False) -> FastAPI:
    """The CDS Hooks service with the SMART routes; `warm` as for cds_hooks.create_app (`run` warms)."""
    from medeventgraph.cds_hooks import create_app as create_cds_app
    from medeventgraph.smart.launch import install_smart

    app = create_cds_app(settings, warm=warm)
    app.title = "MedEventGraph service (CDS Hooks + SMART launch)"
    install_smart(app, settings)
    return app


def run(host: str, port: int, settings: Settings) -> None:
    import uvicorn
    from medeventgraph.cds_hooks.log_safety import configure_service_logging

    configure_service_logging()  # httpx/httpcore at WARNING: their INFO lines carry FHIR URLs
    # access_log off: request lines carry patient ids, launch ids and authorization codes
    uvicorn.run(create_app(settings, warm=True), host=host, port=port, access_log=False, log_level="info")


@contextmanager
def serving(make_app: Callable[[str], FastAPI], log_level: str = "warning") -> Iterator[tuple[str, FastAPI]]:
    """Run `make_app(base_url)` under uvicorn on a free loopback port in a thread, for tests,
    benchmarks and embedding: the app must know its own URL (JWT `aud`) before it starts."""
    import uvicorn

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    base = f"http://127.0.0.1:{sock.getsockname()[1]}"
    app = make_app(base)
    server = uvicorn.Server(uvicorn.Config(app, log_level=log_level, access_log=False, lifespan="on"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    while not server.started:  # readiness, not timing: the flag flips once the socket accepts
        if not thread.is_alive():
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.02)
    try:
        yield base, app
    finally:
        server.should_exit = True
        thread.join(timeout=30)
        sock.close()
