"""Making models from names: `provider:model-id` (SPEC §4).

`sim:*` models are made per episode (they read the task's gold solution and prior). Real
providers are made once per run and shared by all its episodes (one connection pool); their
SDKs are imported here, lazily, only when such a model is asked for.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl

from contracts.errors import InputError, Problem
from harness.models.base import Model, ModelSettings

if TYPE_CHECKING:
    from harness.catalog import Task
    from harness.models.ratelimit import RateLimits

# provider prefix -> "module:factory"; each factory(model_id, settings, base_url, api_key_env) -> Model
PROVIDERS = {
    "anthropic": "harness.models.anthropic_provider:make",
    "openai": "harness.models.openai_provider:make",
    "openai-compatible": "harness.models.openai_provider:make_compatible",
}


def preflight(name: str, base_url: str | None, api_key_env: str | None) -> None:
    """Check, before anything runs, what making model `name` needs (its key, its base URL).

    Each provider module offers `check` beside `make` (for `make_compatible`,
    `check_compatible`); they import no SDK. A sim name's policy and options are parsed.
    Raises `InputError`.
    """
    provider, model_id = split_name(name)
    if provider == "sim":
        from harness.models.sim import parse_sim_name

        parse_sim_name(name)
        return
    module_name, _, factory = PROVIDERS[provider].partition(":")
    check: Any = getattr(importlib.import_module(module_name), factory.replace("make", "check", 1))
    check(model_id, base_url, api_key_env)


def endpoint_problem(models: Iterable[str], base_url: str | None, api_key_env: str | None) -> Problem | None:
    """One `--base-url` and one `--api-key-env` serve every real model of a run, so a run that
    sets either may have models of one provider only: otherwise one provider's key would go to
    another's host (an `anthropic:` key to an `openai-compatible:` server, say)."""
    given = [name for name, value in (("--base-url", base_url), ("--api-key-env", api_key_env)) if value]
    providers = sorted({p for p, _ in map(split_name, models) if p != "sim"})
    if not given or len(providers) < 2:
        return None
    return Problem(
        "/".join(given),
        None,
        f"applies to every model of a run, and this run mixes providers {', '.join(providers)} "
        "(one's key would go to another's host): run each provider in its own command (same --store)",
    )


def split_name(name: str) -> tuple[str, str]:
    provider, sep, model_id = name.partition(":")
    if not sep or not model_id:
        raise InputError.one(
            "--model",
            None,
            f"model {name!r} must be provider:model-id (e.g. sim:oracle, anthropic:claude-sonnet-4-5)",
        )
    if provider != "sim" and provider not in PROVIDERS:
        raise InputError.one(
            "--model", None, f"unknown provider {provider!r}; known: sim, {', '.join(PROVIDERS)}"
        )
    return provider, model_id


def name_options(name: str) -> tuple[str, dict[str, str]]:
    """The part of model name `name` before `?` and its options: `sim:oracle?noise=0.1` ->
    ("sim:oracle", {"noise": "0.1"}). An option given twice (`?noise=0&noise=1`) is an
    `InputError` naming `--model`: which one was meant is not ours to guess."""
    base, asks, query = name.partition("?")
    pairs = parse_qsl(query, keep_blank_values=True)
    if asks and not pairs:  # `sim:single?` was a setting of its own beside `sim:single`
        raise InputError.one("--model", None, f"{name}: no option after '?'; drop the '?' or give KEY=VALUE")
    options = dict(pairs)
    if len(options) < len(pairs):
        twice = next(key for i, (key, _) in enumerate(pairs) if key in dict(pairs[:i]))
        raise InputError.one(
            "--model", None, f"{name}: option {twice!r} is given more than once; give it once"
        )
    return base, options


class ModelFactory:
    """Makes the models of a run; real providers' models are shared and, when the run sets
    limits for their provider, wrapped so that all their calls draw from one window."""

    def __init__(
        self, settings: ModelSettings, base_url: str | None = None, api_key_env: str | None = None,
        rate_limits: dict[str, RateLimits] | None = None, shared_limits: bool = False,
    ) -> None:  # fmt: skip
        self.settings = settings
        self.base_url = base_url
        self.api_key_env = api_key_env
        self.rate_limits = rate_limits or {}
        self.shared_limits = shared_limits  # a Ray run: the window is a cluster-wide actor
        self._shared: dict[str, Model] = {}
        self._windows: dict[str, Any] = {}

    def for_episode(self, name: str, task: Task, seed: int) -> Model:
        provider, model_id = split_name(name)
        if provider == "sim":
            from harness.models.sim import SimModel

            return SimModel.from_name(name, task, seed)
        if name not in self._shared:
            module_name, _, factory = PROVIDERS[provider].partition(":")
            module = importlib.import_module(module_name)
            make: Any = getattr(module, factory)
            model: Model = make(model_id, self.settings, self.base_url, self.api_key_env)
            limits = self.rate_limits.get(provider)
            if limits is not None and (limits.rpm or limits.tpm):
                from harness.models.ratelimit import LocalWindow, RateLimitedModel, RayWindow

                if provider not in self._windows:
                    self._windows[provider] = (
                        RayWindow(provider, limits) if self.shared_limits else LocalWindow(limits)
                    )
                model = RateLimitedModel(model, self._windows[provider])
            self._shared[name] = model
        return self._shared[name]

    async def aclose(self) -> None:
        for model in self._shared.values():
            await model.aclose()
        self._shared.clear()
