"""CDS Hooks 2.0 service: discovery, hooks (patient-view, order-select, order-sign, verify),
prefetch and FHIR fetching, cards, feedback, and JWT trust.

>>> from medeventgraph.cds_hooks import create_app, run
"""

from __future__ import annotations

__all__ = ["create_app", "run"]


def __getattr__(name: str):
    # Lazy: importing the package (e.g. for its models) does not pull in FastAPI and uvicorn.
    if name in __all__:
        from . import app

        return getattr(app, name)
    raise AttributeError(name)
