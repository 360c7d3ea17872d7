"""Making models from names: `provider:model-id` (SPEC §4).

`sim:*` models are made per episode (they read the task's gold solution and prior). Real
providers are made once per run and shared by all its episodes (one connection pool); their
SDKs are imported here, lazily, only when such a model is asked for.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from contracts.errors import InputError
from harness.models.base import Model, ModelSettings

if TYPE_CHECKING:
    from harness.catalog import Task

# provider prefix -> "module:factory"; each factory(model_id, settings, base_url, api_key_env) -> Model
PROVIDERS = {
    "anthropic": "harness.models.anthropic_provider:make",
    "openai": "harness.models.openai_provider:make",
    "openai-compatible": "harness.models.openai_provider:make_compatible",
}


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


class ModelFactory:
    def __init__(
        self, settings: ModelSettings, base_url: str | None = None, api_key_env: str | None = None
    ) -> None:
        self.settings = settings
        self.base_url = base_url
        self.api_key_env = api_key_env
        self._shared: dict[str, Model] = {}

    def for_episode(self, name: str, task: Task, seed: int) -> Model:
        provider, model_id = split_name(name)
        if provider == "sim":
            from harness.models.sim import SimModel

            return SimModel.from_name(name, task, seed)
        if name not in self._shared:
            module_name, _, factory = PROVIDERS[provider].partition(":")
            module = importlib.import_module(module_name)
            make: Any = getattr(module, factory)
            self._shared[name] = make(model_id, self.settings, self.base_url, self.api_key_env)
        return self._shared[name]

    async def aclose(self) -> None:
        for model in self._shared.values():
            await model.aclose()
        self._shared.clear()
