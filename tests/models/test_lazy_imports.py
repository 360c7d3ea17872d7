"""Provider SDKs load only when such a model is made, so `mseval --help` starts fast (SPEC §11)."""

from __future__ import annotations

import subprocess
import sys

PROBE = """
import sys
import harness.cli.main, harness.models.registry, harness.models.config
import harness.models.anthropic_provider, harness.models.openai_provider
import os
os.environ["PROBE_KEY"] = "k"
harness.models.anthropic_provider.check("claude-x", None, "PROBE_KEY")  # the pre-flight check
harness.models.openai_provider.check_compatible("x", "http://127.0.0.1:9/v1", None)
assert not {"anthropic", "openai", "httpx2"} & set(sys.modules), sorted({"anthropic", "openai", "httpx2"} & set(sys.modules))
from harness.models.base import ModelSettings
from harness.models.registry import ModelFactory
ModelFactory(ModelSettings(), base_url="http://127.0.0.1:9/v1").for_episode("openai-compatible:x", None, 0)
assert "openai" in sys.modules and "anthropic" not in sys.modules
"""


def test_sdks_are_imported_only_when_a_model_is_made() -> None:
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
