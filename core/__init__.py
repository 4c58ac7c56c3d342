"""The core, by stage: query -> index -> evidence -> decide, with discover and report on top.

Its public surface is what every surface needs: `build_index` (a patient's searchable form),
`answer` (one verified query), and the query and verdict models; nothing outside the core and the
evaluation imports a stage directly (tests/test_dependencies.py). Each stage is a package:

    query/     the question and the answer's models, free-text questions, the lexicon
    index/     occurrences, graph, context store, retrieval channels
    evidence/  grounding, binding, timing, stated order, coverage, the contract
    decide/    the assessor: the frozen bundle in, (S+, S-, label) out
    discover/  which candidates the contract is offered: every grounded one, or the search
    report/    the bundle and its assessment as the outgoing Verdict

The budgeted search calls the assessor on provisional bundles to know when to stop, which is
why discover/ sits above decide/ in the import order (tests/test_layers.py).
"""

from medeventgraph.core.answer import Answer, answer
from medeventgraph.core.decide.assess_llm import endpoint_problem
from medeventgraph.core.index.graph import sort_key
from medeventgraph.core.index.patient_index import PatientIndex, build_index
from medeventgraph.core.index.store import format_time
from medeventgraph.core.query.lexicon import load_lexicon, normalize_text
from medeventgraph.core.query.model import (
    ActionName,
    EventSpec,
    RelationSpec,
    VerificationQuery,
    parse_duration,
)
from medeventgraph.core.query.question import QuestionParseError, parse_question, parse_question_noted
from medeventgraph.core.query.question_record import read_on_record
from medeventgraph.core.query.verdict import EvidenceOut, RelationOut, TimeOut, Verdict

# One verified query on a patient's index; the query (its models, free-text questions, what
# "started on" means on a record) and the verdict; what the wording layer and the CLI show of an
# index (the lexicon's normal form, an occurrence's time and order); and whether the optional LLM
# assessor's endpoint is usable (preflight, before any record is read).
__all__ = [
    "ActionName",
    "Answer",
    "EventSpec",
    "EvidenceOut",
    "PatientIndex",
    "QuestionParseError",
    "RelationOut",
    "RelationSpec",
    "TimeOut",
    "Verdict",
    "VerificationQuery",
    "answer",
    "build_index",
    "endpoint_problem",
    "format_time",
    "load_lexicon",
    "normalize_text",
    "parse_duration",
    "parse_question",
    "parse_question_noted",
    "read_on_record",
    "sort_key",
]
