"""The model config file: shape, folding of per-provider extras, and problems with file and line."""

from __future__ import annotations

from pathlib import Path

import pytest

from contracts.errors import InputError
from harness.models.base import ModelSettings
from harness.models.config import load_model_config
from harness.models.provider_common import request_extras
from tests.harness.cli_support import mseval, one_line_error

GOOD = """\
settings:
  temperature: 0.2
  max_output_tokens: 4096
  reasoning_effort: medium
  extra: {seed: 7}
providers:
  anthropic:
    extra: {cache_control: {type: ephemeral}}
  openai-compatible:
    extra: {top_k: 20, seed: 8}
prices: prices/mine.yaml
base_url: http://127.0.0.1:8000/v1
api_key_env: VLLM_KEY
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "models.yaml"
    path.write_text(text)
    return path


def test_a_full_config(tmp_path: Path) -> None:
    (tmp_path / "prices").mkdir()
    (tmp_path / "prices" / "mine.yaml").write_text("version: mine\n")
    cfg = load_model_config(write(tmp_path, GOOD))
    assert cfg.base_url == "http://127.0.0.1:8000/v1" and cfg.api_key_env == "VLLM_KEY"
    assert cfg.prices == (tmp_path / "prices" / "mine.yaml").resolve()  # relative to the file
    settings = ModelSettings.model_validate(cfg.settings.model_dump())  # how `mseval run` uses it
    assert settings == cfg.model_settings()
    assert settings.temperature == 0.2 and settings.max_output_tokens == 4096
    assert settings.reasoning_effort == "medium"
    assert request_extras(settings.extra, "anthropic") == {"seed": 7, "cache_control": {"type": "ephemeral"}}
    assert request_extras(settings.extra, "openai-compatible") == {"seed": 8, "top_k": 20}
    assert request_extras(settings.extra, "openai") == {"seed": 7}


def test_an_empty_mapping_gives_the_defaults(tmp_path: Path) -> None:
    cfg = load_model_config(write(tmp_path, "settings: {}\n"))
    assert cfg.model_settings() == ModelSettings()
    assert cfg.prices is None and cfg.base_url is None and cfg.api_key_env is None


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("settings:\n  temprature: 0.5\n", 2, "unknown key 'temprature'"),
        ("settings:\n  temperature: 5\n", 2, "less than or equal to 2"),
        ("settings:\n  max_output_tokens: 0\n", 2, "greater than or equal to 1"),
        ("providers:\n  gemini: {extra: {}}\n", 2, "gemini"),
        ("providers:\n  openai: {extras: {}}\n", 2, "unknown key 'extras'"),
        ("base_url: 127.0.0.1:8000\n", 1, "is not an http:// or https:// URL"),
        ("base_url: http://127.0.0.1:0/v1\n", 1, "the port must be a number from 1 to 65535"),
        ("settings: {}\napi_key_env: sk-abc123\n", 2, "NAME of the environment variable"),
        ("settings: [1, 2\n", 2, "invalid YAML"),  # PyYAML reports where the stream ended
        ("providers:\n  openai:\n    extra:\n      top_k: .inf\n", 4, "top_k: inf is not a JSON value"),
        ("settings:\n  extra:\n    a:\n      b: 2026-01-01\n", 4, "a.b: 2026-01-01 is read as a date"),
        # pydantic's lax mode read a boolean as 1 or 0 in a number field
        ("settings:\n  temperature: false\n", 2, "settings.temperature: give a number, not false"),
        ("settings:\n  max_output_tokens: true\n", 2, "settings.max_output_tokens: give a number, not true"),
        ("providers:\n  openai:\n    tpm: true\n", 3, "providers.openai.tpm: give a number, not true"),
        ("settings:\n  max_output_tokens: 1000001\n", 2, "less than or equal to 1000000"),
    ],
)
def test_bad_files_name_the_file_and_line(tmp_path: Path, text: str, line: int, message: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(InputError) as exc:
        load_model_config(path)
    (problem,) = exc.value.problems
    assert problem.file == str(path) and problem.line == line and message in problem.message


def test_a_provider_section_merges_into_nested_settings_extras_key_by_key(tmp_path: Path) -> None:
    text = """\
settings:
  extra:
    openai-compatible: {chat_template_kwargs: {enable_thinking: false}}
providers:
  openai-compatible:
    extra: {chat_template_kwargs: {thinking_budget: 64}}
"""
    cfg = load_model_config(write(tmp_path, text))
    assert request_extras(cfg.settings.extra, "openai-compatible") == {
        "chat_template_kwargs": {"enable_thinking": False, "thinking_budget": 64}
    }


@pytest.mark.parametrize(
    ("prices", "message"),
    [
        ("nope.yaml", "prices: no file {folder}/nope.yaml"),
        ("sub", "prices: {folder}/sub is a folder; give a price table file"),
    ],
)
def test_a_price_table_that_is_not_there_is_told_at_the_config_line(
    tmp_path: Path, prices: str, message: str
) -> None:
    """`prices: nope.yaml` in a config was told as `…/nope.yaml: cannot read: No such file or
    directory`, against the price file, not the config line that names it."""
    (tmp_path / "sub").mkdir()
    path = write(tmp_path, f"settings:\n  temperature: 0\nprices: {prices}\n")
    with pytest.raises(InputError) as caught:
        load_model_config(path)
    assert str(caught.value) == f"{path}:3: " + message.format(folder=tmp_path)


def test_mseval_run_names_the_config_line_of_a_missing_price_table(tmp_path: Path) -> None:
    path = write(tmp_path, "prices: nope.yaml\n")
    store = tmp_path / "s.db"
    result = mseval(
        "run", "-m", "sim:oracle", "-v", "sa", "--tasks", "lms-due-reminder", "--config", str(path),
        "--store", f"sqlite:///{store}", "--runs-dir", str(tmp_path / "runs"),
    )  # fmt: skip
    assert one_line_error(result) == f"{path}:1: prices: no file {tmp_path}/nope.yaml"
    assert [p.name for p in tmp_path.iterdir()] == ["models.yaml"]


def test_a_config_that_cannot_be_read_is_not_also_blamed_for_its_base_url(tmp_path: Path) -> None:
    """A config whose price table was missing was told, and then the model was told it needs
    --base-url, though the config gave one: what a config that was not read says is unknown."""
    path = write(tmp_path, "base_url: http://127.0.0.1:9/v1\nprices: nope.yaml\n")
    result = mseval(
        "run", "-m", "openai-compatible:qwen3-8b", "-v", "gen", "--tasks", "lms-due-reminder",
        "--config", str(path), "--store", f"sqlite:///{tmp_path / 's.db'}", "--runs-dir", str(tmp_path / "runs"),
    )  # fmt: skip
    assert one_line_error(result) == f"{path}:2: prices: no file {tmp_path}/nope.yaml"


def test_numbers_in_a_config_file_keep_their_other_forms(tmp_path: Path) -> None:
    """Refusing booleans keeps the rest of the lax reading: 1 for 1.0, the maximum itself."""
    cfg = load_model_config(write(tmp_path, "settings:\n  temperature: 1\n  max_output_tokens: 1000000\n"))
    assert cfg.settings.temperature == 1.0 and cfg.settings.max_output_tokens == 1_000_000
