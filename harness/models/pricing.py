"""Cost per model call (SPEC §4): (input − cached)·p_in + cached·p_cached + output·p_out per
million tokens, the tier chosen by the call's input tokens, converted to USD.

Input written to the provider's prompt cache is priced at `cache_write` where the table gives
one (Anthropic: 1.25 × input for the 5-minute cache), at `input` otherwise, which is SPEC §4's
formula unchanged. The part written to a 1-hour cache is priced at `cache_write_1h` (Anthropic:
2 × input), or like the other writes where the table gives none."""

from __future__ import annotations

import fnmatch
from functools import cache
from pathlib import Path
from typing import Annotated, Any

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationError,
    ValidationInfo,
    ValidatorFunctionWrapHandler,
    field_validator,
)
from pydantic_core import InitErrorDetails, PydanticCustomError

from contracts.episode import Usage
from contracts.numbers import Float, Int
from contracts.yamlio import load_yaml_model

DEFAULT_PRICES = Path(__file__).with_name("prices.yaml")


# Per million tokens, and currency units per USD: far beyond any real price or rate, and small
# enough that no call's cost overflows to infinity (1e308 per million tokens made an episode's
# cost inf, its record invalid and the episode absent).
MAX_PRICE = 1_000_000.0
RATE_RANGE = (1e-6, 1e6)


def _rate(rate: float) -> float:
    low, high = RATE_RANGE
    if not low <= rate <= high:
        raise ValueError(f"a currency rate must be from {low:g} to {high:g} (units per USD)")
    return rate


class _Prices(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    input: Float = Field(ge=0, le=MAX_PRICE)
    cached_input: Float = Field(ge=0, le=MAX_PRICE)
    output: Float = Field(ge=0, le=MAX_PRICE)
    cache_write: Float | None = Field(
        default=None, ge=0, le=MAX_PRICE, description="per cache-written input token; default: input"
    )
    cache_write_1h: Float | None = Field(
        default=None,
        ge=0,
        le=MAX_PRICE,
        description="per input token written to a 1-hour cache; default: cache_write",
    )


class Tier(_Prices):
    above_input_tokens: Int = Field(gt=0)


class ModelPrice(_Prices):
    match: str | tuple[str, ...] = Field(
        description="glob(s) on 'provider:model-id', tried on the name with its options and without them"
    )
    currency: str = "USD"
    note: str | None = None
    tiers: tuple[Tier, ...] = ()

    def fits(self, model: str) -> bool:
        """Whether a glob of `match` fits `model` ("openai:o3?api=responses"), or fits it without
        its options ("openai:o3"), so an exact id needs no trailing `*`."""
        names = {model, model.split("?", 1)[0]}
        globs = (self.match,) if isinstance(self.match, str) else self.match
        return any(fnmatch.fnmatchcase(name, g) for name in names for g in globs)

    def for_input(self, input_tokens: int) -> _Prices:
        chosen: _Prices = self
        for tier in sorted(self.tiers, key=lambda t: t.above_input_tokens):
            if input_tokens > tier.above_input_tokens:
                chosen = tier
        return chosen


class PriceTable(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    version: str = Field(min_length=1)
    currency_rates: dict[str, Annotated[Float, AfterValidator(_rate)]]
    models: tuple[ModelPrice, ...]
    _found: dict[str, ModelPrice | None] = PrivateAttr(default_factory=dict)

    @field_validator("models", mode="wrap")
    @classmethod
    def _currencies_known(
        cls, value: Any, handler: ValidatorFunctionWrapHandler, info: ValidationInfo
    ) -> Any:
        """Each model's currency has a rate: refused at the currency's own line, every such model,
        beside the models' other problems (an after-validator ran only on an otherwise valid table,
        and said its first unrated currency at line 1)."""
        rates = info.data.get("currency_rates") or {}  # absent when the rates themselves were refused
        items = value if "currency_rates" in info.data and isinstance(value, (list, tuple)) else ()
        unrated = [
            InitErrorDetails(
                type=PydanticCustomError(
                    "currency_unrated", "currency '{currency}' has no rate in currency_rates", {"currency": c}
                ),
                loc=(i, "currency"),
                input=c,
            )
            for i, m in enumerate(items)
            if isinstance(m, dict) and isinstance(c := m.get("currency", "USD"), str) and c not in rates
        ]
        try:
            models = handler(value)
        except ValidationError as exc:
            if not unrated:
                raise
            kept = [
                InitErrorDetails(
                    type=PydanticCustomError(e["type"], e["msg"]),  # no context: the text is kept as it is
                    loc=e["loc"],
                    input=e["input"],
                )
                for e in exc.errors()
            ]
            raise ValidationError.from_exception_data(
                cls.__name__, sorted([*kept, *unrated], key=_in_order)
            ) from None
        if unrated:
            raise ValidationError.from_exception_data(cls.__name__, unrated)
        return models

    def lookup(self, model: str) -> ModelPrice | None:
        """The first entry that fits `model`, found once per name (a call's cost is priced on every
        model call; trying every glob took up to 30 µs for a model the table does not know)."""
        try:
            return self._found[model]
        except KeyError:
            found = self._found[model] = next((m for m in self.models if m.fits(model)), None)
            return found

    def call_cost(self, model: str, usage: Usage) -> float | None:
        """USD cost of one call; None when the model has no price."""
        price = self.lookup(model)
        if price is None:
            return None
        p = price.for_input(usage.input_tokens)
        cached = min(usage.cached_input_tokens, usage.input_tokens)
        written = min(usage.cache_write_input_tokens, usage.input_tokens - cached)
        written_1h = min(usage.cache_write_1h_input_tokens, written)
        write_price = p.input if p.cache_write is None else p.cache_write
        write_1h_price = write_price if p.cache_write_1h is None else p.cache_write_1h
        amount = (
            (usage.input_tokens - cached - written) * p.input
            + cached * p.cached_input
            + (written - written_1h) * write_price
            + written_1h * write_1h_price
            + usage.output_tokens * p.output
        )
        return amount / 1e6 / self.currency_rates[price.currency]


def _in_order(error: InitErrorDetails) -> tuple[tuple[int, int, str], ...]:
    """Errors in the order of their places in the file (list positions are numbers, keys text)."""
    return tuple((0, p, "") if isinstance(p, int) else (1, 0, str(p)) for p in error["loc"])


@cache
def load_prices(path: Path = DEFAULT_PRICES) -> PriceTable:
    return load_yaml_model(path, PriceTable)
