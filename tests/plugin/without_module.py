"""Run the medeventgraph CLI as if some top-level modules were not installed:
`python without_module.py ray,sentence_transformers screen --input ...`.

A finder first on sys.meta_path raises ModuleNotFoundError for them, as the import system does
for a package that is not there, so the venv's own copies (the test extras install them) are
never reached."""

from __future__ import annotations

import sys
from importlib.machinery import ModuleSpec


class _NotInstalled:
    def __init__(self, names: set[str]):
        self.names = names

    def find_spec(self, name: str, path: object = None, target: object = None) -> ModuleSpec | None:
        if name.partition(".")[0] in self.names:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None


if __name__ == "__main__":
    blocked = set(sys.argv.pop(1).split(","))
    sys.meta_path.insert(0, _NotInstalled(blocked))
    from medeventgraph.cli.main import main

    sys.exit(main())
