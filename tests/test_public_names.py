"""Every public top-level function and class of the shipped packages is used outside its module.

A public name is a promise that something else calls it; one nothing calls is dead code that
still has to be read, kept typed and kept working. The scan reads every module of the shipped
folders (pyproject's package-dir, less the evaluation, which is a benchmark) with `ast`, takes
its top-level `def`, `async def` and `class` names without a leading underscore, and looks for
each name outside its own module: in the code of the other shipped modules, the tests and the
benchmarks, in README.md and docs/, and in pyproject.toml. A name only its own module uses is
reported too: it should be private.

What counts as a use, and why:
- In Python files, an identifier in code (a name, an attribute, a non-docstring string such as a
  patch target or a `getattr` key). Import statements and `__all__` do not count: importing or
  re-exporting a name is not calling it, so a name reached only through a package's re-export is
  still unused.
- In README.md, docs/ and pyproject.toml, the name as a whole word: documented API is public on
  purpose, and pyproject's `[project.scripts]` entry points are how a console script is reached.
- A function registered under a key by its decorator (a decorator call whose first argument is a
  string literal: `@router.post("/cds-services/{id}")`, `@app.get("/launch")`) is used by the
  registry that decorator fills (the framework routes to it), so it counts as used in place.
- A class named in an annotation of its own module's public definitions (a public function's
  parameters or return, a public class's fields or public methods) is part of that public
  signature: callers hold its instances without naming it, and a public function must not
  return a private type. It counts as used.
- Only top-level names are scanned: methods and pydantic/dataclass fields are reached through
  instances (attribute access, serialisation), which a name scan cannot attribute to one class.
The match is by name, not by binding: an identifier of the same name elsewhere hides an unused
definition, so the scan errs toward keeping code, never toward deleting used code.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHIPPED = ("model", "fhir_adapters", "nlp", "core", "wording", "cds_hooks", "plugin")
OTHER_CODE = ("tests", "benchmarks")
PENDING: dict[str, list[str]] = {"unused": [], "own module only": []}


@dataclass(frozen=True)
class Public:
    path: Path
    name: str


def _registered(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> bool:
    """A decorator call keyed by a string literal registers the definition with a framework."""
    return any(isinstance(d, ast.Call) and d.args and isinstance(d.args[0], ast.Constant)
               and isinstance(d.args[0].value, str) for d in node.decorator_list)


def public_definitions(path: Path) -> list[Public]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    return [Public(path, node.name) for node in tree.body
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
            and not node.name.startswith("_") and not _registered(node)]


def _annotation_names(node: ast.AST) -> set[str]:
    names: set[str] = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name):
            names.add(sub.id)
        elif isinstance(sub, ast.Attribute):
            names.add(sub.attr)
        elif isinstance(sub, ast.Constant) and isinstance(sub.value, str):
            names.update(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", sub.value))
    return names


def _signature_names(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    a = fn.args
    annotations = [x.annotation for x in [*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg] if x]
    return set().union(*(_annotation_names(x) for x in [*annotations, fn.returns] if x is not None))


def public_signature_types(path: Path) -> set[str]:
    """The names in the annotations of a module's public functions and public classes."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names: set[str] = set()
    for node in tree.body:
        if getattr(node, "name", "_").startswith("_"):
            continue
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            names |= _signature_names(node)
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.AnnAssign):
                    names |= _annotation_names(item.annotation)
                elif isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef) and not (
                        item.name.startswith("_") and not item.name.endswith("__")):
                    names |= _signature_names(item)
    return names


def _docstrings(tree: ast.Module) -> set[int]:
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                ids.add(id(first.value))
    return ids


def _skipped(tree: ast.Module) -> set[int]:
    """Nodes that are not uses: import statements and `__all__` assignments, with their children."""
    out: set[int] = set()
    for node in ast.walk(tree):
        is_all = isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign) and any(
            isinstance(t, ast.Name) and t.id == "__all__"
            for t in (node.targets if isinstance(node, ast.Assign) else [node.target]))
        if isinstance(node, ast.Import | ast.ImportFrom) or is_all:
            out.update(id(n) for n in ast.walk(node))
    return out


def used_identifiers(path: Path) -> set[str]:
    """The identifiers a Python file uses in code (see the module docstring for what counts)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    skipped, docstrings = _skipped(tree), _docstrings(tree)
    names: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Name):
            names.add(node.id)
        elif isinstance(node, ast.Attribute):
            names.add(node.attr)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            names.update(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", node.value))
    return names


def _python_files(root: Path, folders: Iterable[str]) -> list[Path]:
    return sorted(p for f in folders for p in (root / f).rglob("*.py") if "data" not in p.relative_to(root).parts)


def _text_files(root: Path) -> list[Path]:
    return [p for p in (root / "README.md", root / "pyproject.toml") if p.exists()] + sorted(
        (root / "docs").rglob("*.md"))


def unused(root: Path, shipped: Iterable[str], other_code: Iterable[str]) -> dict[str, list[str]]:
    """{"unused": [...], "own module only": [...]}, each entry `path:name`."""
    shipped_files = _python_files(root, shipped)
    # this file names the pending findings as strings: it is the scan, not a user
    used = {p: used_identifiers(p) for p in [*shipped_files, *_python_files(root, other_code)]
            if p != Path(__file__).resolve()}
    prose = "\n".join(p.read_text(encoding="utf-8") for p in _text_files(root))
    prose_words = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", prose))
    report: dict[str, list[str]] = {"unused": [], "own module only": []}
    for path in shipped_files:
        signature_types = public_signature_types(path)
        for d in public_definitions(path):
            elsewhere = d.name in prose_words or any(d.name in ids for p, ids in used.items() if p != path)
            in_signature = d.name in signature_types and d.name[:1].isupper()
            if not elsewhere and not in_signature:
                kind = "own module only" if d.name in used[path] else "unused"
                report[kind].append(f"{path.relative_to(root)}:{d.name}")
    return report


def test_every_public_name_is_used_outside_its_module() -> None:
    report = unused(REPO, SHIPPED, OTHER_CODE)
    assert report == PENDING, report


def test_the_scan_reports_an_unused_and_an_own_module_function(tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text('from .a import called, forgotten\n\n__all__ = ["called", "forgotten"]\n')
    (pkg / "a.py").write_text(
        '"""forgotten is named here only in a docstring."""\n'
        "def called():\n    return helper()\n\n"
        "def helper():\n    return 1\n\n"
        "def forgotten():\n    return 2\n\n"
        "@router.get('/x')\ndef route():\n    return 3\n\n"
        "def documented():\n    return 4\n")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_a.py").write_text("from pkg.a import called, forgotten\n\ndef test():\n    called()\n")
    (tmp_path / "README.md").write_text("Call `documented()`.\n")
    assert unused(tmp_path, ["pkg"], ["tests"]) == {
        "unused": ["pkg/a.py:forgotten"], "own module only": ["pkg/a.py:helper"]}
