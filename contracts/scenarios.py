"""The eight scenarios (SPEC §5), loaded from scenarios.yaml."""

from __future__ import annotations

from pathlib import Path

import yaml

_DATA = yaml.safe_load((Path(__file__).parent / "scenarios.yaml").read_text())

SCENARIOS: dict[str, str] = {code: entry["name"] for code, entry in _DATA.items()}
SCENARIO_SERVERS: dict[str, str] = {code: entry["server"] for code, entry in _DATA.items()}
