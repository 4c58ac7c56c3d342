"""MedEventGraph: verify clinical event relations against a patient's FHIR record.

>>> from medeventgraph import verify   # verify(resources, query) -> Verdict
"""

from medeventgraph.model.version import __version__

__all__ = ["__version__", "verify"]


def __getattr__(name: str):
    # Lazy so that importing the plain data types does not pull in the whole core.
    if name == "verify":
        from medeventgraph.api import verify

        return verify
    raise AttributeError(name)
