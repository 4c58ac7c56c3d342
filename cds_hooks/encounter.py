"""The launch encounter: when the EHR names the encounter it is in (a SMART launch's `encounter`,
a hook's `context.encounterId`), an encounter-scoped question is about that encounter, not
any single one.

The record is narrowed at the occurrence level (after the FHIR adapters have tied each entry to
its encounter) and indexed on its own; the index is cached beside the whole record's, keyed by
the record's content and the encounter. Resources stay whole so every citation still resolves.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from medeventgraph.cds_hooks.prefetch import PatientData, content_hash

if TYPE_CHECKING:
    from medeventgraph.cds_hooks.engine import Engine
    from medeventgraph.cds_hooks.worker_pool import Deadline
    from medeventgraph.core import VerificationQuery

__all__ = ["index_for_question", "launch_encounter_applies"]


def launch_encounter_applies(query: VerificationQuery, encounter: str | None) -> bool:
    return bool(encounter) and query.scope.value == "encounter"


def index_for_question(engine: Engine, patient: str, data: PatientData, source_name: str,
                       query: VerificationQuery, encounter: str | None, deadline: Deadline | None = None) -> Any:
    """The index a question is verified on: the whole record, or only the launch encounter's
    entries when the question is encounter-scoped and the EHR named an encounter."""
    whole = engine.index_for(patient, data, source_name, deadline)
    if not launch_encounter_applies(query, encounter):
        return whole
    ref = f"Encounter/{str(encounter).removeprefix('Encounter/')}"

    def build() -> Any:
        from medeventgraph.core import build_index

        record = whole.record
        narrowed = replace(record,
                           occurrences=[o for o in record.occurrences if o.encounter == ref or o.reference == ref],
                           documents=[d for d in record.documents if d.encounter == ref])
        return build_index(narrowed, engine.settings, notes=engine.note_pipeline())

    return engine.cache.get_or_build(patient, f"{content_hash(data.resources)}|{ref}", build)
