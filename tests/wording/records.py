"""Verdicts built for the wording tests: vancomycin at 2024-06-15 10:18, then the "acute kidney
injury" end either computed from creatinine values (a KDIGO rise, core.index.derive) or a
coded diagnosis someone documented. Times are to the second, as a screening export gives them."""

from __future__ import annotations

from typing import Any

from medeventgraph.core.query.model import VerificationQuery
from medeventgraph.core.query.verdict import Verdict

VANCO_AT = "2024-06-15T10:18:00Z"
RISE_AT = "2024-06-16T08:01:31.373845Z"  # 21 hours 43 minutes later
QUERY = {"id": "aki-after-vanco", "scope": "patient",
         "events": [{"id": "e0", "text": "vancomycin", "kind": "medication"},
                    {"id": "e1", "text": "acute kidney injury", "kind": "condition"}],
         "relations": [{"from": "e0", "to": "e1", "type": "before", "within": "P7D"}]}
_PLAIN = {"negated": False, "uncertain": False, "hypothetical": False, "historical": False, "family": False}


def _item(occurrence: str, event: str, kind: str, origin: str, concept: str, at: str, **extra: Any) -> dict[str, Any]:
    return {"occurrence": occurrence, "events": [event], "kind": kind, "origin": origin, "concept": concept,
            "context": f"{occurrence.split('/')[0]} | {concept} | occurrence time {at} (second)",
            "time": {"start": at, "end": None, "type": "occurrence", "granularity": "second"},
            "scope": "valid", "assertion": dict(_PLAIN), "polarity": "supports",
            "source": {"reference": extra.pop("reference", occurrence)}, **extra}


def vancomycin() -> dict[str, Any]:
    return _item("MedicationAdministration/t-vanc", "e0", "medication", "structured", "Vancomycin 1 g IV", VANCO_AT,
                 codes=["http://www.nlm.nih.gov/research/umls/rxnorm|11124"])


def kdigo_rise() -> dict[str, Any]:
    return _item("derived/kdigo-creatinine-rise/Observation/t-cr2", "e1", "derived", "derived",
                 "Creatinine rise (KDIGO)", RISE_AT, reference="Observation/t-cr2",
                 codes=["urn:medeventgraph:derive|kdigo-creatinine-rise"],
                 value={"quantity": 2.1, "unit": "mg/dL", "text": "0.9 -> 2.1 mg/dL: +1.20 mg/dL within 48 h",
                        "reference": 0.9},
                 derived_from=["Observation/t-cr1", "Observation/t-cr2"],
                 basis=["e1:derived-finding:kdigo-creatinine-rise|Observation/t-cr1,Observation/t-cr2"])


def aki_diagnosis() -> dict[str, Any]:
    return _item("Condition/t-aki", "e1", "condition", "structured", "Acute kidney injury", RISE_AT,
                 codes=["http://hl7.org/fhir/sid/icd-10-cm|N17.9"])


def supported(second: dict[str, Any]) -> tuple[Verdict, VerificationQuery]:
    first = vancomycin()
    verdict = Verdict.model_validate({
        "id": "aki-after-vanco", "patient": "t-1", "verdict": "supported", "binary": "supported",
        "s_plus": 1.0, "s_minus": 0.0, "citations": [first["source"]["reference"], second["source"]["reference"]],
        "evidence": [second, first],
        "relations": [{"source": "e0", "target": "e1", "type": "before", "within": "P7D", "timing": "compatible",
                       "pair": [first["occurrence"], second["occurrence"]], "explanation": "compatible"}],
        "bundle_hash": "sha256:" + "ab" * 32})
    return verdict, VerificationQuery.model_validate(QUERY)
