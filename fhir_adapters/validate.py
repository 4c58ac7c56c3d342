"""Full R4B model validation, for the few resources that end up cited as evidence.

fhir.resources models are far too slow for ingest (see ingest.py), so this runs lazily on
demand. Pydantic errors become Issues that name field paths and error kinds only: pydantic's
messages and custom validators can quote the offending value, which may be PHI.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from medeventgraph.fhir_adapters.resource_types import KNOWN_RESOURCE_TYPES
from medeventgraph.model.outcome import Issue

__all__ = ["validate_resource"]

_CODE_BY_KIND = {
    "missing": "required",
    "extra_forbidden": "structure",
    "model_type": "structure",
    "list_type": "structure",
    "dict_type": "structure",
}


@lru_cache(maxsize=256)
def _model(resource_type: str) -> Any:
    from fhir.resources.R4B import get_fhir_model_class  # heavy import, only when asked

    return get_fhir_model_class(resource_type)


def _path(resource_type: str, loc: tuple[Any, ...]) -> str:
    out = resource_type
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif isinstance(part, str) and part and not part.startswith(("function-", "union[", "json-or-python")):
            out += f".{part}"
    return out


def validate_resource(raw: dict[str, Any]) -> list[Issue]:
    """Issues found by the fhir.resources R4B model for `raw`; [] when it validates."""
    if not isinstance(raw, dict):
        return [Issue("error", "structure", "resource is not a JSON object")]
    rtype = raw.get("resourceType")
    if not isinstance(rtype, str) or rtype not in KNOWN_RESOURCE_TYPES:
        return [Issue("error", "structure", "no known resourceType")]
    rid = raw.get("id")
    label = f"{rtype}/{rid}" if isinstance(rid, str) else rtype
    try:
        model = _model(rtype)
    except (ValueError, AttributeError, ImportError):
        return [Issue("warning", "not-supported", f"{label}: no R4B model for this resource type; not validated")]
    from pydantic import ValidationError

    try:
        model.model_validate(raw)
    except ValidationError as e:
        issues = []
        for err in e.errors(include_url=False, include_input=False, include_context=False):
            kind = str(err.get("type", "invalid"))
            path = _path(rtype, tuple(err.get("loc", ())))
            code = _CODE_BY_KIND.get(kind)
            if code is None:
                code = "value" if kind.endswith(("_parsing", "_type", "_pattern_mismatch")) else "invalid"
            issues.append(Issue("error", code, f"{label}: {path}: {kind}", (path,)))
        return issues
    except Exception as e:  # noqa: BLE001 - custom validators raise many kinds; never quote them
        return [Issue("error", "invalid", f"{label}: model validation failed ({type(e).__name__})")]
    return []
