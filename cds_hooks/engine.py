"""The bridge to the core: patient data -> cached index -> verdicts. Runs in a worker thread.

Core modules are imported inside functions: the service starts (and discovery answers) even
while a heavy core dependency is still loading, and import errors surface as one clear 500.
"""

from __future__ import annotations

import logging
import threading
from typing import TYPE_CHECKING, Any

from medeventgraph.cds_hooks.cache import IndexCache
from medeventgraph.cds_hooks.errors import HookError
from medeventgraph.cds_hooks.prefetch import PatientData, check_shapes, content_hash
from medeventgraph.cds_hooks.worker_pool import Deadline, Workers
from medeventgraph.fhir_adapters.json_shape import shape_problem
from medeventgraph.fhir_adapters.limits import InputLimits
from medeventgraph.model.settings import Settings

if TYPE_CHECKING:
    from medeventgraph.core import Verdict, VerificationQuery

__all__ = ["Engine"]

log = logging.getLogger("medeventgraph.cds_hooks")


class Engine:
    def __init__(self, settings: Settings):
        self.settings = settings
        self.cache: IndexCache[Any] = IndexCache(settings.graph_cache_size)
        self._notes: Any = None
        self._notes_ready = False
        self._notes_lock = threading.Lock()
        self.workers = Workers(settings.verify_workers)

    def close(self) -> None:
        self.workers.close()

    def note_pipeline(self) -> Any:
        """The note NLP pipeline, built once per service on first use (loading it is slow)."""
        with self._notes_lock:
            if not self._notes_ready:
                self._notes_ready = True
                if self.settings.notes:
                    try:
                        from medeventgraph.nlp import NotePipeline

                        self._notes = NotePipeline(max_note_chars=self.settings.max_note_chars,
                                                   cache_size=self.settings.note_cache_size,
                                                   cache_chars=self.settings.note_cache_chars)
                    except ImportError as exc:
                        log.warning("note NLP unavailable (%s): notes are not read", type(exc).__name__)
            return self._notes

    def warm(self) -> None:
        """What the first request would otherwise pay, paid now: the core's imports and the note
        pipeline, built and run once. An import that fails is logged and left for that request
        to report, as without warming."""
        try:
            import medeventgraph.core  # noqa: F401  (the import is the work)
        except ImportError as exc:
            log.warning("core unavailable at start-up (%s): requests will report it", type(exc).__name__)
            return
        pipeline = self.note_pipeline()
        if pipeline is not None:
            pipeline.warm()

    def index_for(self, patient: str, data: PatientData, source_name: str, deadline: Deadline | None = None) -> Any:
        limits = InputLimits.from_settings(self.settings)
        digest = content_hash(data.resources, limits.max_json_depth)

        def build() -> Any:
            from medeventgraph.core import build_index
            from medeventgraph.fhir_adapters import ingest_json

            # Only on a miss: content that was cached has been checked already.
            check_shapes(data.resources, limits.max_json_depth)
            result = ingest_json(data.as_bundle(), source_name=source_name, limits=limits)
            record = result.for_patient(patient)
            if not record.occurrences and not record.resources:
                log.info("%s: no resources for the context patient", source_name)
            notes = self.note_pipeline()
            if deadline is not None:
                deadline.check()
            return build_index(record, self.settings, notes=notes)

        return self.cache.get_or_build(patient, digest, build)

    def verify(self, index: Any, query: VerificationQuery, deadline: Deadline | None = None) -> Verdict:
        return self.verify_asked(index, query, None, deadline)[1]

    def verify_asked(self, index: Any, query: VerificationQuery, question: str | None,
                     deadline: Deadline | None = None) -> tuple[VerificationQuery, Verdict]:
        """Verify `query`, made from `question` (None: sent as JSON) before the record was read,
        with its action words read against the index's record (core.question_record); the query
        as verified, and the verdict saying in search.grounding how the record decided."""
        from medeventgraph.core import answer

        if deadline is not None:
            deadline.check()
        answered = answer(index, query, self.settings, question=question)
        return answered.query, answered.verdict

    def verify_many(self, index: Any, queries: list[VerificationQuery],
                    deadline: Deadline | None = None) -> list[Verdict]:
        return [self.verify(index, q, deadline) for q in queries]

    @staticmethod
    def parse_query(value: dict[str, Any] | str) -> VerificationQuery:
        """The verify hook's query: the JSON model, or a free-text question when a parser exists."""
        from medeventgraph.core import VerificationQuery
        from pydantic import ValidationError

        if isinstance(value, dict):
            try:
                return VerificationQuery.model_validate(value)
            except ValidationError as exc:
                first = exc.errors()[0]
                loc = ".".join(str(p) for p in first.get("loc", ()))
                raise HookError(400, f"context.query{'.' + loc if loc else ''}: {first.get('msg')}",
                                code="invalid", expression=("context.query",)) from None
        text = value.strip()
        if not text or len(text) > 1000:
            raise HookError(400, "context.query: question must be 1-1000 characters", code="invalid")
        problem = shape_problem(text, 1)  # the SMART page's question comes here, not through _context
        if problem is not None:
            raise HookError(400, f"context.query: question: {problem.rule}", code=problem.code,
                            expression=("context.query",))
        try:
            from medeventgraph.core import QuestionParseError, parse_question
        except ImportError:
            raise HookError(400, "context.query: free-text questions are not supported by this build; "
                                 "send the query JSON model", code="not-supported") from None
        try:
            return parse_question(text)
        except QuestionParseError as exc:
            raise HookError(400, f"context.query: question not understood ({type(exc).__name__})",
                            code="invalid") from None
