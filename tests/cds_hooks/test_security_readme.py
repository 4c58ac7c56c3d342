"""The Security page (docs/security.md, moved there from the README) stays true to the code:
every setting it lists exists with the default it states."""

from __future__ import annotations

import re

from medeventgraph.model.settings import Settings

from .conftest import REPO


def test_security_settings_table_matches_the_defaults():
    section = (REPO / "docs" / "security.md").read_text()
    rows = re.findall(r"^\| `MEG_([A-Z_]+)` \| ([^|]+) \|", section, re.MULTILINE)
    assert len(rows) >= 5
    defaults = Settings()
    for name, default in rows:
        field = name.lower()
        assert field in Settings.model_fields, name
        if default.strip().isdigit():
            assert getattr(defaults, field) == int(default.strip()), name
