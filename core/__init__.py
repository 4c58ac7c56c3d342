"""The core, by stage: query -> index -> evidence -> decide, with discover and report on top.

Its public surface is what every surface needs: `build_index` (a patient's searchable form),
`answer` (one verified query), and the query and verdict models. Each stage is a package:

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
from medeventgraph.core.index.patient_index import PatientIndex, build_index
from medeventgraph.core.query.model import VerificationQuery
from medeventgraph.core.query.verdict import Verdict

__all__ = ["Answer", "PatientIndex", "Verdict", "VerificationQuery", "answer", "build_index"]
