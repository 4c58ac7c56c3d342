"""Synthea bundles as an EHR would prefetch them: urn:uuid references become Type/id."""

from __future__ import annotations

import json
import re
from collections import defaultdict
from pathlib import Path
from typing import Any

from medeventgraph.cds_hooks.prefetch import PATIENT_PREFETCH

# prefetch key -> resource type, read from the service's own templates
PREFETCH_TYPES = {key: re.split(r"[/?]", template, maxsplit=1)[0] for key, template in PATIENT_PREFETCH.items()}


def _rewrite(node: Any, urn: dict[str, str]) -> None:
    if isinstance(node, list):
        for n in node:
            _rewrite(n, urn)
    elif isinstance(node, dict):
        for k, v in node.items():
            if k == "reference" and isinstance(v, str) and v in urn:
                node[k] = urn[v]
            else:
                _rewrite(v, urn)


def load_patient(path: Path) -> tuple[str, dict[str, list[dict[str, Any]]]]:
    """(patient id, resources by type) with references rewritten to Type/id."""
    bundle = json.loads(path.read_text())
    entries = [e for e in bundle["entry"] if "resource" in e]
    urn = {e["fullUrl"]: f"{e['resource']['resourceType']}/{e['resource']['id']}"
           for e in entries if e.get("fullUrl", "").startswith("urn:uuid:")}
    by_type: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for e in entries:
        _rewrite(e["resource"], urn)
        by_type[e["resource"]["resourceType"]].append(e["resource"])
    patient = by_type["Patient"][0]["id"]
    return patient, dict(by_type)


def prefetch_for(by_type: dict[str, list[dict[str, Any]]], *, omit: tuple[str, ...] = ()) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, rtype in PREFETCH_TYPES.items():
        if key in omit:
            continue
        if rtype == "Patient":
            out[key] = by_type["Patient"][0]
        else:
            res = by_type.get(rtype, [])
            out[key] = {"resourceType": "Bundle", "type": "searchset", "total": len(res),
                        "entry": [{"fullUrl": f"{rtype}/{r['id']}", "resource": r} for r in res]}
    return out
