"""Every file, command and name that README.md and docs/*.md point to exists.

A newcomer copies what the docs show; a moved file or renamed target breaks that silently. The
rules, chosen so that only text written as code or as a link is read, never prose:

- Code is every inline `code span` and every line of a fenced block.
- A **path** is a token of code that contains a `/` and whose first segment is a top-level file or
  folder of the repository (`core/answer.py`, `tests/data`, `results/EVAL.md`). Paths are written
  from the repository root on every page. It must exist; `*` must match something, `…` stands for
  any characters, and `tests/x.py::name` also needs `name` defined in `tests/x.py`. Not read: paths
  outside the repository (`../shared/...`), what a command creates (the value of `--out`), and
  what `.gitignore` ignores (outputs such as `results/demo_verdicts.jsonl`).
- A **link** (`[text](target)`, `![alt](target)`) to a local file resolves from the page's own
  folder, as GitHub renders it; a `#fragment` names a heading of the target page.
- A **command** is the first word of a code span, of a fenced line, or after `&&`, `||`, `;` or
  `|`, past `VAR=value` assignments:
  `make T ...` needs every target before the first option defined in the Makefile or a file it
  includes; `python -m M` (any python: `.venv/bin/python`, `python3.11`) needs
  `importlib.util.find_spec(M)`; `medeventgraph SUB` needs SUB among the subcommands of
  `plugin/cli/main.py`'s parser.
- A code span that is a whole **dotted name** under the package (`medeventgraph.api.load`, or from
  a layer folder: `core.answer.verify_query`) must import, down to its last attribute; a file name
  (`model.py`) is not a dotted name.
"""

from __future__ import annotations

import argparse
import fnmatch
import importlib
import importlib.util
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
README_MAX_LINES = 300
# Layer folders whose dotted names read as `medeventgraph.<folder>...` (pyproject's package-dir).
LAYERS = ("model", "fhir_adapters", "nlp", "core", "wording", "cds_hooks")

_FENCE = re.compile(r"^\s*```")
_SPAN = re.compile(r"`([^`\n]+)`")
_LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
_SEPARATOR = re.compile(r"&&|\|\||;|\|")
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=\S*$")
_PATH_CHARS = r"[^\s'\"`()\[\]{},;|<>=]"
_DOTTED = re.compile(r"^(medeventgraph|" + "|".join(LAYERS) + r")(\.[A-Za-z_]\w*)+$")
_FILE_NAME = re.compile(r"\.(py|json|jsonl|md|txt|toml|html|csv)$")
_PYTHON = re.compile(r"^(\S*/)?python(3(\.\d+)?)?$")


@dataclass(frozen=True)
class RepoFacts:
    root: Path
    top_level: frozenset[str]
    make_targets: frozenset[str]
    subcommands: frozenset[str]
    ignored: tuple[str, ...]  # .gitignore patterns


def _make_targets(makefile: Path) -> set[str]:
    targets: set[str] = set()
    for line in makefile.read_text(encoding="utf-8").splitlines():
        include = re.match(r"^-?include\s+(.+)$", line)
        if include:
            for name in include.group(1).split():
                targets |= _make_targets(makefile.parent / name)
            continue
        rule = re.match(r"^([^\s#=:][^:=]*?)\s*::?(?!=)", line)
        if rule:
            targets.update(rule.group(1).split())
    return targets


def _subcommands() -> set[str]:
    from medeventgraph.cli.main import build_parser

    return {name for action in build_parser()._actions if isinstance(action, argparse._SubParsersAction)
            for name in action.choices}


def repo_facts(root: Path = REPO) -> RepoFacts:
    ignore = root / ".gitignore"
    patterns = ignore.read_text(encoding="utf-8").splitlines() if ignore.is_file() else []
    return RepoFacts(
        root=root,
        top_level=frozenset(p.name for p in root.iterdir() if not p.name.startswith(".")),
        make_targets=frozenset(_make_targets(root / "Makefile")),
        subcommands=frozenset(_subcommands()),
        ignored=tuple(p.strip() for p in patterns if p.strip() and not p.startswith("#")),
    )


def _code_and_prose(text: str) -> tuple[list[str], list[str]]:
    """(code pieces: spans and fenced lines, prose lines with their spans removed)."""
    code: list[str] = []
    prose: list[str] = []
    fenced = False
    for line in text.splitlines():
        if _FENCE.match(line):
            fenced = not fenced
            continue
        if fenced:
            code.append(line)
        else:
            code.extend(_SPAN.findall(line))
            prose.append(_SPAN.sub("", line))
    return code, prose


def _is_ignored(rel: str, facts: RepoFacts) -> bool:
    parts = rel.rstrip("/").split("/")
    prefixes = ["/".join(parts[:k]) for k in range(1, len(parts) + 1)]
    for pattern in facts.ignored:
        pat = pattern.rstrip("/").lstrip("/")
        for prefix in prefixes:
            if fnmatch.fnmatch(prefix, pat) or ("/" not in pat and fnmatch.fnmatch(prefix.rsplit("/", 1)[-1], pat)):
                return True
    return False


def _path_problem(token: str, facts: RepoFacts) -> str | None:
    rel, _, names = token.partition("::")
    rel = rel.rstrip(".:")
    if _is_ignored(rel, facts):
        return None
    pattern = rel.replace("…", "*")
    if "*" in pattern:
        if not any(facts.root.glob(pattern)):
            return f"no file matches {token}"
        return None
    path = facts.root / rel
    if not path.exists():
        return f"missing path {rel}"
    if names:
        source = path.read_text(encoding="utf-8")
        for name in names.split("::"):
            if not re.search(rf"^\s*(async\s+def|def|class)\s+{re.escape(name)}\b", source, re.MULTILINE):
                return f"{rel} defines no {name}"
    return None


def _paths(code: str, facts: RepoFacts) -> list[str]:
    problems = []
    for m in re.finditer(rf"(?<![\w./~-])({_PATH_CHARS}+)", code):
        token = m.group(1)
        first = token.split("/", 1)[0]
        if "/" not in token or first not in facts.top_level:
            continue
        if re.search(r"--out[ =]$", code[:m.start()]):
            continue  # what the command creates
        problem = _path_problem(token, facts)
        if problem:
            problems.append(problem)
    return problems


def _commands(code: str, facts: RepoFacts) -> list[str]:
    problems = []
    for segment in _SEPARATOR.split(code.split(" #", 1)[0]):
        words = segment.split()
        while words and (_ASSIGNMENT.match(words[0]) or words[0] == "$"):
            words = words[1:]
        if not words:
            continue
        head, args = words[0], words[1:]
        if head == "make":
            for target in args:
                if target.startswith("-") or "=" in target:
                    break
                if target not in facts.make_targets:
                    problems.append(f"no make target {target}")
        elif _PYTHON.match(head) and len(args) >= 2 and args[0] == "-m":
            problems += [f"no module {args[1]}"] if importlib.util.find_spec(args[1]) is None else []
        elif head.rsplit("/", 1)[-1] == "medeventgraph" and args and re.fullmatch(r"[a-z][\w-]*", args[0]):
            problems += [] if args[0] in facts.subcommands else [f"no subcommand medeventgraph {args[0]}"]
    return problems


def _dotted_problem(name: str) -> str | None:
    parts = name.split(".")
    if parts[0] in LAYERS:
        parts = ["medeventgraph", *parts]
    for cut in range(len(parts), 0, -1):
        module_name = ".".join(parts[:cut])
        try:
            obj: object = importlib.import_module(module_name)
        except ImportError:
            continue
        for attr in parts[cut:]:
            if not hasattr(obj, attr):
                return f"{name}: {'.'.join(parts[:cut])} has no {attr}"
            obj = getattr(obj, attr)
        return None
    return f"{name} does not import"


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def _anchors(page: Path) -> set[str]:
    code_free = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.DOTALL)
    return {_slug(m.group(1)) for m in re.finditer(r"^#+\s+(.+)$", code_free, re.MULTILINE)}


def _link_problem(target: str, page: Path) -> str | None:
    if re.match(r"^[a-z][a-z0-9+.-]*:", target):
        return None  # https:, mailto:
    file_part, _, fragment = target.partition("#")
    resolved = (page.parent / file_part).resolve() if file_part else page
    if not resolved.exists():
        return f"link to missing {target}"
    if fragment and resolved.suffix == ".md" and fragment not in _anchors(resolved):
        return f"link to missing heading {target}"
    return None


def problems(text: str, page: Path, facts: RepoFacts) -> list[str]:
    """What `text` (the content of `page`) names that does not exist."""
    code, prose = _code_and_prose(text)
    found: list[str] = []
    for piece in code:
        found += _paths(piece, facts)
        found += _commands(piece, facts)
        if _DOTTED.match(piece) and not _FILE_NAME.search(piece):
            found += [p for p in [_dotted_problem(piece)] if p]
    for line in prose:
        for target in _LINK.findall(line):
            problem = _link_problem(target, page)
            if problem:
                found.append(problem)
    return found


PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]


@pytest.fixture(scope="module")
def facts() -> RepoFacts:
    return repo_facts()


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(REPO).as_posix())
def test_everything_a_page_names_exists(page: Path, facts: RepoFacts) -> None:
    assert not problems(page.read_text(encoding="utf-8"), page, facts)


def test_readme_is_short() -> None:
    assert len((REPO / "README.md").read_text(encoding="utf-8").splitlines()) <= README_MAX_LINES


def test_every_docs_page_is_linked_from_the_readme() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    unlinked = [p.name for p in PAGES[1:] if f"](docs/{p.name})" not in readme]
    assert not unlinked


GOOD = """Run `make test`, then `.venv/bin/python -m pytest -n 0 tests/test_docs.py::test_readme_is_short`.
See `core/answer.py`, `medeventgraph.api.verify_index` and [the layers](docs/architecture.md#layers).

```
MEG_DENSE=false medeventgraph verify --bundle examples/synthea --out results/new-folder
cd benchmarks && ../.venv/bin/python -m medeventgraph.evaluation   # writes results/EVAL.md
```
"""


@pytest.mark.parametrize(("broken", "problem"), [
    ("`core/answers.py`", "missing path core/answers.py"),
    ("`medeventgraph verify --bundle examples/synthetic`", "missing path examples/synthetic"),
    ("`tests/test_docs.py::test_nothing`", "tests/test_docs.py defines no test_nothing"),
    ("`tests/*/test_nowhere_*.py`", "no file matches tests/*/test_nowhere_*.py"),
    ("`make demo docs`", "no make target docs"),
    ("```\nMEG_X=1 python3.11 -m medeventgraph.nowhere\n```", "no module medeventgraph.nowhere"),
    ("`medeventgraph check --bundle x`", "no subcommand medeventgraph check"),
    ("`core.answer.respond`", "core.answer.respond: medeventgraph.core.answer has no respond"),
    ("[notes](docs/note.md)", "link to missing docs/note.md"),
    ("[notes](docs/notes.md#no-such-heading)", "link to missing heading docs/notes.md#no-such-heading"),
])
def test_the_checker_catches_what_is_missing(broken: str, problem: str, facts: RepoFacts) -> None:
    readme = REPO / "README.md"
    assert problems(GOOD, readme, facts) == []
    assert problems(GOOD + "\n" + broken + "\n", readme, facts) == [problem]
