"""Imports, read with `ast`: every third-party package the code imports is declared in
pyproject.toml, and every module of ours imports only the layers below its own.

An undeclared import works on a developer's machine when some other package happens to pull it in
(scipy came with the dense extra, loguru with PyRuSH) and fails on a user's fresh install: this test
reads every import of the shipped packages and benchmarks, maps it to the distribution that
provides it, and checks that distribution is a declared dependency or extra.
"""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SOURCE_DIRS = (  # tests too: their imports must install from the test extra
    "model", "plugin", "wording", "core", "fhir_adapters", "nlp", "cds_hooks", "benchmarks", "tests")


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _declared() -> set[str]:
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    specs = list(project["dependencies"])
    for extra in project.get("optional-dependencies", {}).values():
        specs.extend(extra)
    return {_canonical(re.split(r"[\s\[<>=!~;]", spec, maxsplit=1)[0]) for spec in specs}


def _imports(path: Path, module: str = "") -> set[str]:
    """Every module `path` imports, anywhere in it (inside functions and TYPE_CHECKING blocks
    too), as dotted names; `from a import b` yields both `a` and `a.b` (b may be a module).
    Relative imports resolve against `module`, the file's own dotted name."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level and not module:
                continue  # relative to a file whose dotted name was not given: ours by construction
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1] + ([base] if base else []))
            names.add(base)
            names.update(f"{base}.{alias.name}" for alias in node.names)
    return {n for n in names if n}


def _imported_top_levels(path: Path) -> set[str]:
    return {name.split(".")[0] for name in _imports(path)}


def _local_modules() -> set[str]:
    """Modules that are ours: the namespace and the benchmarks' own sibling modules."""
    local = {"medeventgraph"}
    for folder in SOURCE_DIRS:
        for path in (REPO / folder).rglob("*.py"):
            local.add(path.stem)
    return local


def test_every_imported_distribution_is_declared() -> None:
    declared = _declared()
    providers = packages_distributions()
    local = _local_modules()
    undeclared: dict[str, set[str]] = {}
    for folder in SOURCE_DIRS:
        for path in sorted((REPO / folder).rglob("*.py")):
            for name in _imported_top_levels(path):
                if name in sys.stdlib_module_names or name in local or name == "__future__":
                    continue
                dists = {_canonical(d) for d in providers.get(name, [name])}
                if not dists & declared:
                    undeclared.setdefault(name, set()).add(str(path.relative_to(REPO)))
    assert not undeclared, f"imported but not declared in pyproject.toml: {undeclared}"


def test_the_check_sees_an_undeclared_import(tmp_path: Path) -> None:
    """The reader itself works: a module importing scipy and loguru yields both names."""
    module = tmp_path / "m.py"
    module.write_text("import scipy.sparse\n\ndef f():\n    from loguru import logger\n    return logger\n")
    assert _imported_top_levels(module) >= {"scipy", "loguru"}


# --- Layers: every module imports only what sits below it ------------------------------------------
#
# The package graph, bottom to top (README "Layout", docs/architecture.md). A module may import its
# own package and any package of a lower rank; two packages of the same rank never import each
# other. Counting every import (inside functions and TYPE_CHECKING blocks too) keeps the graph
# acyclic, so that each layer can be read, tested and replaced without the ones above it.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("medeventgraph.model",),
    ("medeventgraph.fhir_adapters", "medeventgraph.nlp"),
    # the core by stage; the budgeted search asks the assessor when to stop, so discover/ is above decide/
    ("medeventgraph.core.query",),
    ("medeventgraph.core.index",),
    ("medeventgraph.core.evidence",),
    ("medeventgraph.core.decide",),
    ("medeventgraph.core.discover", "medeventgraph.core.report"),
    ("medeventgraph.core.answer",),
    ("medeventgraph.core",),  # its __init__: the public surface
    ("medeventgraph.wording",),
    ("medeventgraph.cds_hooks",),
    ("medeventgraph.api", "medeventgraph.batch", "medeventgraph.preflight"),
    ("medeventgraph.smart", "medeventgraph.screen", "medeventgraph.evaluation", "medeventgraph.demo"),
    ("medeventgraph.app",),
    ("medeventgraph.cli",),
    ("medeventgraph",),  # the root: its version and a lazy `verify`
)
_RANKS = {unit: rank for rank, units in enumerate(LAYERS) for unit in units}


def _package_dirs() -> dict[str, str]:
    return tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["package-dir"]


def _shipped_modules() -> dict[str, Path]:
    """Dotted name -> file, for every module of the packages pyproject maps."""
    modules: dict[str, Path] = {}
    for package, folder in sorted(_package_dirs().items(), key=lambda kv: -len(kv[0])):
        for path in (REPO / folder).rglob("*.py"):
            parts = list(path.relative_to(REPO / folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            modules.setdefault(".".join([package, *parts]), path)
    return modules


def _unit(module: str) -> str:
    """The layer unit a module belongs to: the longest LAYERS entry that is it or contains it."""
    return max((u for u in _RANKS if module == u or module.startswith(u + ".")), key=len)


def import_graph() -> dict[str, set[str]]:
    """module -> the project's modules it imports (names that are not modules, e.g. a class
    imported from its module, resolve to that module)."""
    modules = _shipped_modules()

    def resolve(name: str) -> str | None:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        targets = {resolve(n) for n in _imports(path, name) if n.startswith("medeventgraph")}
        graph[name] = {t for t in targets if t and t != name}
    return graph


def layer_violations(graph: dict[str, set[str]]) -> list[str]:
    problems = []
    for source, targets in sorted(graph.items()):
        here = _unit(source)
        for target in sorted(targets):
            there = _unit(target)
            if there == here or _RANKS[there] < _RANKS[here]:
                continue
            problems.append(f"{source} imports {target} ({here} must not import {there})")
    return problems


def test_each_layer_imports_only_layers_below_it() -> None:
    graph = import_graph()
    assert "medeventgraph.core.answer" in graph and "medeventgraph.model.occurrence" in graph
    assert not layer_violations(graph)


def test_every_shipped_package_has_a_layer() -> None:
    """A new package must be placed in LAYERS, or it would fall into its parent's rank unseen."""
    folders = {m for m, p in _shipped_modules().items() if p.name == "__init__.py"}
    unplaced = {f for f in folders if f not in _RANKS and _unit(f) in {"medeventgraph", "medeventgraph.core"}}
    assert not unplaced, f"packages with no layer in LAYERS: {sorted(unplaced)}"


def test_a_wrong_way_import_is_caught() -> None:
    graph = import_graph()
    graph["medeventgraph.model.occurrence"] = graph["medeventgraph.model.occurrence"] | {"medeventgraph.core.answer"}
    graph["medeventgraph.nlp.dates"] = graph["medeventgraph.nlp.dates"] | {"medeventgraph.fhir_adapters.times"}
    graph["medeventgraph.core.decide.assess"] = graph["medeventgraph.core.decide.assess"] | {
        "medeventgraph.core.discover.search"}
    found = layer_violations(graph)
    assert len(found) == 3, found


def test_the_reader_sees_imports_inside_functions_and_relative_ones(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text("def f():\n    from medeventgraph.core import answer\n    from .sibling import x\n")
    seen = _imports(module, "medeventgraph.wording.m")
    assert {"medeventgraph.core.answer", "medeventgraph.wording.sibling"} <= seen


def core_internal_imports(paths: dict[str, Path]) -> list[str]:
    """Imports of a core stage (`medeventgraph.core.<stage>...`) by the given modules."""
    found = []
    for name, path in sorted(paths.items()):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            modules = [a.name for a in node.names] if isinstance(node, ast.Import) else (
                [node.module] if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module else [])
            found += [f"{name} imports {m}" for m in modules if m.startswith("medeventgraph.core.")]
    return found


def test_outside_the_core_only_its_public_surface_is_imported() -> None:
    """The surfaces and the wording layer use `medeventgraph.core` (its __init__: answer,
    build_index, the query and verdict models), so the stages can be rearranged behind it. The
    evaluation is exempt: it measures the stages one by one."""
    outside = {n: p for n, p in _shipped_modules().items()
               if not n.startswith(("medeventgraph.core", "medeventgraph.evaluation"))}
    assert not core_internal_imports(outside)


def test_an_import_of_a_core_stage_is_caught(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text("def f():\n    from medeventgraph.core.decide.assess import assess\n")
    assert core_internal_imports({"medeventgraph.wording.m": module}) == [
        "medeventgraph.wording.m imports medeventgraph.core.decide.assess"]
