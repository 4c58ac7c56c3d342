"""App assembly: the CDS Hooks service with the SMART launch page, and `medeventgraph serve`.

Both surfaces share one ServiceState (settings, HTTP client, the index cache and the note
pipeline), so a chart opened in the SMART page reuses the index its hooks already built.
"""

from __future__ import annotations

import logging

from fastapi import FastAPI
from medeventgraph.settings import Settings

__all__ = ["create_app", "run"]


def create_app(settings: Settings) -> FastAPI:
    from medeventgraph.cds_hooks import create_app as create_cds_app

    from .smart import install_smart

    app = create_cds_app(settings)
    app.title = "MedEventGraph service (CDS Hooks + SMART launch)"
    install_smart(app, settings)
    return app


def run(host: str, port: int, settings: Settings) -> None:
    import uvicorn

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    # access_log off: request lines carry patient ids, launch ids and authorization codes
    uvicorn.run(create_app(settings), host=host, port=port, access_log=False, log_level="info")
