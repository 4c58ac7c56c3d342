"""Every third-party package the code imports is declared in pyproject.toml.

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


def _imported_top_levels(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


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
