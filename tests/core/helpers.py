"""Small query builders shared by the core tests."""

from __future__ import annotations

from medeventgraph.core.query.model import VerificationQuery


def pair(a: str, b: str, typ: str = "before", scope: str = "encounter", within: str | None = None,
         ka: str | None = None, kb: str | None = None) -> VerificationQuery:
    rel: dict = {"from": "e0", "to": "e1", "type": typ}
    if within:
        rel["within"] = within
    return VerificationQuery.model_validate({
        "id": f"{a}-{typ}-{b}",
        "events": [{"id": "e0", "text": a, "kind": ka}, {"id": "e1", "text": b, "kind": kb}],
        "relations": [rel],
        "scope": scope,
    })


def chain(steps: list[tuple[str, str]], scope: str = "encounter", hidden: tuple[int, ...] = ()) -> VerificationQuery:
    events = []
    for k, (text, kind) in enumerate(steps):
        e: dict = {"id": f"e{k}", "kind": kind}
        if k in hidden:
            e["hidden"] = True
        else:
            e["text"] = text
        events.append(e)
    rels = [{"from": f"e{k}", "to": f"e{k + 1}", "type": "before"} for k in range(len(steps) - 1)]
    return VerificationQuery.model_validate({"id": "chain", "events": events, "relations": rels, "scope": scope})
