"""The one loader of packaged data: what each reader returns and how a malformed file fails."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
from medeventgraph.model.packaged import (
    packaged_built,
    packaged_bytes,
    packaged_model,
    packaged_object,
    packaged_path,
    packaged_text,
)
from pydantic import ValidationError


@dataclass(frozen=True)
class Limit:
    name: str
    value: float


@pytest.fixture
def package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """An importable package `pkgdata_probe` with a resources/ folder of small files."""
    root = tmp_path / "pkgdata_probe"
    (root / "resources").mkdir(parents=True)
    (root / "__init__.py").write_text("")
    (root / "resources" / "limit.json").write_text('{"name": "creatinine", "value": "1.5", "source": "KDIGO"}')
    (root / "resources" / "short.json").write_text('{"name": "creatinine"}')
    (root / "resources" / "list.json").write_text("[1, 2]")
    (root / "resources" / "page.html").write_bytes("<p>µmol/L</p>".encode())
    monkeypatch.syspath_prepend(str(tmp_path))
    return "pkgdata_probe"


def test_reads_bytes_text_and_objects(package: str) -> None:
    assert packaged_bytes(package, "page.html") == "<p>µmol/L</p>".encode()
    assert packaged_text(package, "page.html") == "<p>µmol/L</p>"
    assert packaged_object(package, "limit.json")["source"] == "KDIGO"
    assert packaged_path(package, "limit.json").read_bytes() == packaged_bytes(package, "limit.json")


def test_a_model_is_validated_and_coerced_ignoring_provenance_fields(package: str) -> None:
    assert packaged_model(package, "limit.json", Limit) == Limit("creatinine", 1.5)


def test_a_missing_field_fails_naming_the_field_and_the_file(package: str) -> None:
    with pytest.raises(ValidationError, match="value") as err:
        packaged_model(package, "short.json", Limit)
    assert err.value.__notes__ == [f"{package}/resources/short.json"]


def test_a_builder_error_names_the_file(package: str) -> None:
    assert packaged_built(package, "limit.json", lambda raw: raw["name"].upper()) == "CREATININE"
    with pytest.raises(ValueError, match=rf"{package}/resources/short.json: KeyError\('value'\)"):
        packaged_built(package, "short.json", lambda raw: float(raw["value"]))
    with pytest.raises(ValueError, match="a JSON object expected"):
        packaged_built(package, "list.json", dict)


def test_every_project_package_reads_through_the_loader() -> None:
    """No module of the shipped packages opens its own resources/ folder."""
    repo = Path(__file__).resolve().parents[2]
    found = []
    for folder in ("model", "fhir_adapters", "nlp", "core", "wording", "cds_hooks", "plugin", "benchmarks"):
        for path in (repo / folder).rglob("*.py"):
            if path.name == "packaged.py" and path.parent.name == "model":
                continue
            text = path.read_text(encoding="utf-8")
            if "resources.files(" in text or "importlib.resources import files" in text:
                found.append(str(path.relative_to(repo)))
    assert not found, found
