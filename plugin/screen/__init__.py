"""Population screening: a watch list over a whole Bulk FHIR export (local or Ray), resumable,
with findings written back as FHIR DetectedIssue + Provenance."""

from .plan import Selection
from .run import RunSummary, ScreenJob, run_screen

__all__ = ["RunSummary", "ScreenJob", "Selection", "run_screen"]
