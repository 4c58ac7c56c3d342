"""One real resource of every type the record adapters map (fhir_adapters.mappers.MAPPERS), for
tests that damage them field by field: the first of each type in the bundled public data
(tests/data: a Synthea bundle, the clinosim NDJSON export) and, for the four types neither holds,
one written here in the R4 shape of the specification's examples. Each is given a plain id and
made the context patient's."""

from __future__ import annotations

import copy
import gzip
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from medeventgraph.fhir_adapters.mappers.registry import MAPPERS
from medeventgraph.fhir_adapters.resource_types import PATIENT_FIELDS

DATA = Path(__file__).resolve().parents[1] / "data"
SYNTHEA = DATA / "synthea" / "Boyce638_Nolan344_9c5b16dc-8a47-896c-4d74-f96f8c98891b.json"
CLINOSIM = DATA / "clinosim" / "fhir_r4"

_CODE = {"coding": [{"system": "http://www.nlm.nih.gov/research/umls/rxnorm", "code": "11124",
                     "display": "vancomycin"}], "text": "vancomycin"}
WRITTEN: dict[str, dict[str, Any]] = {
    "EpisodeOfCare": {"resourceType": "EpisodeOfCare", "status": "finished",
                      "type": [{"coding": [{"system": "http://terminology.hl7.org/CodeSystem/episodeofcare-type",
                                            "code": "hacc", "display": "Home and Community Care"}]}],
                      "patient": {}, "period": {"start": "2020-01-01", "end": "2020-01-20"}},
    "AllergyIntolerance": {"resourceType": "AllergyIntolerance",
                           "clinicalStatus": {"coding": [{"code": "active"}]},
                           "verificationStatus": {"coding": [{"code": "confirmed"}]},
                           "code": {"coding": [{"system": "http://snomed.info/sct", "code": "294505008",
                                                "display": "Allergy to penicillin"}]},
                           "patient": {}, "onsetDateTime": "2019-05-01", "recordedDate": "2019-05-02",
                           "reaction": [{"manifestation": [{"text": "hives"}], "severity": "moderate"}]},
    "MedicationStatement": {"resourceType": "MedicationStatement", "status": "active",
                            "medicationCodeableConcept": _CODE, "subject": {},
                            "effectivePeriod": {"start": "2020-01-02T08:00:00Z"}, "dateAsserted": "2020-01-03",
                            "dosage": [{"text": "1 g IV every 12 hours"}]},
    "MedicationDispense": {"resourceType": "MedicationDispense", "status": "completed",
                           "medicationCodeableConcept": _CODE, "subject": {},
                           "quantity": {"value": 14, "unit": "vial"}, "whenHandedOver": "2020-01-02T09:30:00Z",
                           "dosageInstruction": [{"text": "1 g IV every 12 hours"}]},
}


def _found() -> dict[str, dict[str, Any]]:
    found: dict[str, dict[str, Any]] = {}
    for entry in json.loads(SYNTHEA.read_text(encoding="utf-8"))["entry"]:
        found.setdefault(entry["resource"]["resourceType"], entry["resource"])
    for path in sorted(CLINOSIM.glob("*.ndjson.gz")):
        with gzip.open(path, "rt", encoding="utf-8") as f:
            first = json.loads(f.readline())
        found.setdefault(first["resourceType"], first)
    return found


def mapped_resources(patient: str) -> dict[str, dict[str, Any]]:
    """resourceType -> a fresh copy of its resource, id `r-<type>`, owned by Patient/`patient`."""
    found = {**_found(), **WRITTEN}
    out = {}
    for rtype in MAPPERS:
        res = copy.deepcopy(found[rtype])
        res["id"] = f"r-{rtype.lower()}"
        for name in PATIENT_FIELDS:
            if name in res:
                res[name] = {"reference": f"Patient/{patient}"}
        out[rtype] = res
    return out


Path_ = tuple[str | int, ...]


def string_places(node: Any, path: Path_ = ()) -> Iterator[tuple[Path_, bool]]:
    """Every string in `node`: (its path, True) for a value, (the path of its key, False) for a
    key of an object."""
    if isinstance(node, dict):
        for key, value in node.items():
            yield (*path, key), False
            yield from string_places(value, (*path, key))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from string_places(value, (*path, i))
    elif isinstance(node, str):
        yield path, True


def with_surrogate(res: dict[str, Any], path: Path_, in_value: bool, char: str = "\ud800",
                   at: int = 0) -> dict[str, Any]:
    """A copy of `res` with `char` put into the string at `path` (its value, or its key), at
    offset `at` (cut to the string's length)."""
    out = copy.deepcopy(res)
    parent: Any = out
    for part in path[:-1]:
        parent = parent[part]
    last = path[-1]
    if in_value:
        text = parent[last]
        parent[last] = text[:at] + char + text[at:]
    else:
        text = str(last)
        parent[text[:at] + char + text[at:]] = parent.pop(last)
    return out
