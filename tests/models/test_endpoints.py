"""One `--base-url` / `--api-key-env` for every model of a run (regression: a run mixing
`anthropic:` with `openai-compatible:` sent the Anthropic key to the compatible server)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from contracts.errors import InputError
from harness.cli.plan import build_plan
from tests.models.episodes import KEY, KEY_ENV, PRICES, TASK, delegation_script
from tests.models.fake_llm import FakeLLM
from tests.models.test_cli_run import CHILD_LIMIT_S, MSEVAL, ROOT


def plan(tmp_path: Path, models: list[str], base_url: str | None, api_key_env: str | None = None) -> object:
    return build_plan(
        matrix=[(m, "sa") for m in models], tasks=TASK, seeds=1, concurrency=1,
        store=f"sqlite:///{tmp_path}/runs.db", resume=False, base_url=base_url, api_key_env=api_key_env,
        prices=PRICES, runs_dir=tmp_path / "runs",
    )  # fmt: skip


@pytest.fixture(autouse=True)
def _keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, KEY)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-fake")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-oai-fake")


@pytest.mark.parametrize(
    ("models", "base_url", "key_env", "named"),
    [
        (["anthropic:claude-x", "openai-compatible:qwen"], "http://127.0.0.1:9/v1", None, "--base-url"),
        (
            ["openai:gpt-5", "openai-compatible:qwen"],
            "http://127.0.0.1:9/v1",
            KEY_ENV,
            "--base-url/--api-key-env",
        ),
        (["anthropic:claude-x", "openai:gpt-5", "sim:oracle"], None, KEY_ENV, "--api-key-env"),
    ],
)
def test_a_run_mixing_providers_may_not_share_one_endpoint_or_key(
    tmp_path: Path, models: list[str], base_url: str | None, key_env: str | None, named: str
) -> None:
    with pytest.raises(InputError) as exc:
        plan(tmp_path, models, base_url, key_env)
    (problem,) = exc.value.problems
    providers = sorted({m.partition(":")[0] for m in models} - {"sim"})
    assert problem.file == named and f"mixes providers {', '.join(providers)}" in problem.message


def test_one_provider_or_sim_beside_it_may_share_them(tmp_path: Path) -> None:
    url = "http://127.0.0.1:9/v1"
    assert plan(tmp_path, ["openai-compatible:a", "openai-compatible:b", "sim:oracle"], url, KEY_ENV)
    assert plan(tmp_path, ["anthropic:claude-x", "openai:gpt-5"], None)  # each its own default key


def test_mseval_run_refuses_the_mix_with_exit_2_before_any_request(tmp_path: Path) -> None:
    env = {**os.environ, "ANTHROPIC_API_KEY": "sk-ant-fake"}
    with FakeLLM("chat", delegation_script("explorer")) as fake:
        done = subprocess.run(
            [str(MSEVAL), "run", "--model", "anthropic:claude-x", "--model", "openai-compatible:qwen",
             "--base-url", fake.url, "--variant", "sa", "--tasks", TASK, "--store", f"sqlite:///{tmp_path}/r.db",
             "--runs-dir", str(tmp_path / "runs"), "--prices", str(PRICES)],
            cwd=ROOT, env=env, capture_output=True, text=True, timeout=CHILD_LIMIT_S, check=False,
        )  # fmt: skip
    assert done.returncode == 2 and not fake.requests, done.stdout + done.stderr
    (line,) = [x for x in done.stderr.splitlines() if "--base-url" in x]
    assert "anthropic, openai-compatible" in line
