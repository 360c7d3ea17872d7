"""The model config file (`mseval run --config FILE`): settings, per-provider extras, prices, endpoint.

```yaml
settings:                       # every key optional; these are the defaults
  temperature: 0                # null: never sent
  max_output_tokens: 8192
  reasoning_effort: null        # e.g. low | medium | high (provider-specific words)
  extra: {}                     # request fields sent to every provider as they are
providers:                      # request fields for one provider only (win over settings.extra)
  anthropic: {extra: {cache_control: {type: ephemeral}}}
  openai: {extra: {service_tier: flex}}
  openai-compatible: {extra: {top_k: 20}, rpm: 60, tpm: 200000}   # rate limits for the whole run
prices: my-prices.yaml          # a price table (path relative to this file)
base_url: http://127.0.0.1:8000/v1
api_key_env: MY_SERVER_KEY      # the NAME of the variable holding the key, never the key
```
The per-provider sections are folded into `settings.extra` under the provider's name (the
convention `provider_common.request_extras` reads), so `config.settings` is exactly the
`ModelSettings` of the run and everything in it is part of the run identity.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from contracts.errors import InputError, Problem
from contracts.jsonvalue import JsonObject
from contracts.numbers import Float, Int
from contracts.paths import lookup_problem
from contracts.yamlio import read_yaml, validate_data
from harness.models.base import ModelSettings
from harness.models.provider_common import ENV_NAME, merged
from harness.models.ratelimit import RateLimits

BASE_URL = r"^https?://"
ProviderName = Literal["anthropic", "openai", "openai-compatible"]
_DEFAULTS = ModelSettings()
# The most output tokens one call may ask for: far above any model's own limit (128K for the
# largest today), so that a slip of the keyboard is refused before a run (docs/models.md).
MAX_OUTPUT_TOKENS = 1_000_000


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)


class SettingsSection(_Strict):
    temperature: Float | None = Field(default=_DEFAULTS.temperature, ge=0, le=2)
    max_output_tokens: Int = Field(default=_DEFAULTS.max_output_tokens, ge=1, le=MAX_OUTPUT_TOKENS)
    reasoning_effort: str | None = Field(default=_DEFAULTS.reasoning_effort, min_length=1)
    extra: JsonObject = Field(default_factory=dict)


class ProviderSection(_Strict):
    extra: JsonObject = Field(default_factory=dict)
    rpm: Int | None = Field(default=None, ge=1, description="requests per minute, across the whole run")
    tpm: Int | None = Field(default=None, ge=1, description="tokens per minute, across the whole run")


class ModelConfig(_Strict):
    settings: SettingsSection = Field(default_factory=SettingsSection)
    providers: dict[ProviderName, ProviderSection] = Field(default_factory=dict)
    prices: Path | None = None
    base_url: str | None = None
    api_key_env: str | None = None

    @field_validator("base_url")
    @classmethod
    def _usable_url(cls, value: str | None) -> str | None:
        problem = base_url_problem(value) if value is not None else None
        if problem:
            raise ValueError(problem)
        return value

    @field_validator("api_key_env")
    @classmethod
    def _env_name(cls, value: str | None) -> str | None:
        if value is not None and not ENV_NAME.match(value):
            raise ValueError(
                "give the NAME of the environment variable holding the key (e.g. MY_KEY), not the key"
            )
        return value

    @model_validator(mode="after")
    def _fold_providers(self) -> ModelConfig:
        if not self.providers:
            return self
        extra = dict(self.settings.extra)
        for name, section in self.providers.items():
            extra[name] = merged(extra.get(name) or {}, section.extra)
        return self.model_copy(update={"settings": self.settings.model_copy(update={"extra": extra})})

    def rate_limits(self) -> dict[str, RateLimits]:
        """Per-provider limits from the `providers:` sections that set rpm or tpm."""
        return {n: RateLimits(rpm=p.rpm, tpm=p.tpm) for n, p in self.providers.items() if p.rpm or p.tpm}

    def model_settings(self) -> ModelSettings:
        """The run's `ModelSettings` (per-provider extras folded into `extra`)."""
        return ModelSettings.model_validate(self.settings.model_dump())


def load_model_config(path: Path) -> ModelConfig:
    """Read and validate a model config file; problems → `InputError` with file and line. The
    price table it names (relative to it) must be a file: one that is not is told at the line
    of `prices:`, which is where it is to be mended (the price file's own problems are told
    against that file when it is read)."""
    data, lines = read_yaml(path)
    config = validate_data(ModelConfig, data, str(path), lines)
    if config.prices is not None:
        prices = path.parent / config.prices  # a no-op for an absolute path
        if problem := _price_file_problem(prices):
            raise InputError.one(str(path), lines.get(("prices",)), f"prices: {problem}")
        config = config.model_copy(update={"prices": prices.resolve()})
    return config


def _price_file_problem(path: Path) -> str | None:
    if reason := lookup_problem(path, file=True):
        return f"cannot use {path}: {reason}"
    if path.is_dir():
        return f"{path} is a folder; give a price table file"
    if not path.exists():
        return f"no file {path}"
    return None


def base_url_problem(url: str) -> str | None:
    """Why `url` cannot be a model endpoint, or None: it must be http or https, name a host and
    a port (if any) of 1 to 65535, and have no spaces. A bad one was found by the first request,
    as a traceback or every episode's API error after its retries (or a hang on `https://:0`)."""
    if not re.match(BASE_URL, url):
        return f"{url!r} is not an http:// or https:// URL"
    if any(c.isspace() for c in url):
        return f"{url!r} has a space in it"
    try:
        parts = urlsplit(url)
    except ValueError as exc:  # `http://[::1`: Invalid IPv6 URL
        return f"{url!r}: {exc}"
    if not parts.hostname:
        return f"{url!r} names no host"
    try:
        port = parts.port
    except ValueError:  # not a number, or past 65535
        port = -1
    if port is not None and not 1 <= port <= 65535:
        return f"{url!r}: the port must be a number from 1 to 65535"
    return None


def option_problems(
    base_url: str | None,
    temperature: float | None,
    max_output_tokens: int | None,
    reasoning_effort: str | None,
    api_key_env: str | None = None,
) -> list[Problem]:
    """Settings given as command-line options, held to the config file's rules."""
    problems = []
    url_problem = base_url_problem(base_url) if base_url is not None else None
    if url_problem:
        problems.append(Problem("--base-url", None, url_problem))
    if api_key_env is not None and not ENV_NAME.match(api_key_env):  # as provider_common.api_key says it
        problems.append(
            Problem(
                "--api-key-env",
                None,
                f"{api_key_env[:6]}…: give the NAME of an environment variable, not a key",
            )
        )
    given = {
        k: v
        for k, v in (
            ("temperature", temperature),
            ("max_output_tokens", max_output_tokens),
            ("reasoning_effort", reasoning_effort),
        )
        if v is not None
    }
    try:
        SettingsSection.model_validate(given)
    except ValidationError as exc:
        for err in exc.errors():
            option = "--" + str(err["loc"][0]).replace("_", "-")
            problems.append(Problem(option, None, f"{err['input']!r}: {err['msg'].lower()}"))
    return problems
