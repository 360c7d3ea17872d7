"""The delegation prior (SPEC §6): the golden plan of waves for one task.

The rules across fields (a unit's mode agrees with its label; waves agree with
`need_delegation`; no wave is empty) are checked from the input even when a field fails, and
reported with the field problems in one `ValidationError`, each at its own key: a model's
after-validator would be skipped once any field fails, hiding these problems until the first
ones are fixed (SPEC §12: all problems at once).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ModelWrapValidatorHandler,
    StrictBool,
    TypeAdapter,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic_core import InitErrorDetails, PydanticCustomError

from contracts.labels import LABELS, label_mode

Mode = Literal["read-only", "writable"]
_MODES = ("read-only", "writable")
_BOOL = TypeAdapter(StrictBool)


def _rule_error(loc: tuple[str | int, ...], value: Any, message: str) -> InitErrorDetails:
    return {"type": PydanticCustomError("value_error", message), "loc": loc, "input": value}


def _with_rule_errors(
    title: str, data: Any, handler: ModelWrapValidatorHandler[Any], rules: list[InitErrorDetails]
) -> Any:
    """`handler(data)`, raising its field errors and `rules` together when there are any."""
    try:
        model = handler(data)
    except ValidationError as exc:
        # Each error again as it was (its type and message), so readers see no difference.
        fields: list[InitErrorDetails] = [
            {"type": PydanticCustomError(e["type"], e["msg"]), "loc": e["loc"], "input": e["input"]}
            for e in exc.errors()
        ]
        raise ValidationError.from_exception_data(exc.title, fields + rules) from None
    if rules:
        raise ValidationError.from_exception_data(title, rules)
    return model


class PriorUnit(BaseModel):
    """One golden sub-agent: which sub-task, its function label, and its type per variant."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    subtask: str = Field(min_length=1)
    description: str = Field(min_length=1)
    label: str
    mode: Mode
    gen: str = Field(min_length=1)
    spec: str = Field(min_length=1)

    @field_validator("label")
    @classmethod
    def _known_label(cls, value: str) -> str:
        if value not in LABELS:
            raise ValueError(f"unknown function label {value!r}")
        return value

    @model_validator(mode="wrap")
    @classmethod
    def _mode_matches_label(cls, data: Any, handler: ModelWrapValidatorHandler[PriorUnit]) -> PriorUnit:
        rules: list[InitErrorDetails] = []
        if isinstance(data, Mapping):
            label, mode = data.get("label"), data.get("mode")
            # a label of the wrong type (a list is unhashable) is a field problem, told by the handler
            if isinstance(label, str) and label in LABELS and mode in _MODES and label_mode(label) != mode:
                rules.append(
                    _rule_error(
                        ("mode",), mode, f"label {label!r} is {label_mode(label)}, but the unit says {mode}"
                    )
                )
        unit: PriorUnit = _with_rule_errors(cls.__name__, data, handler, rules)
        return unit

    def subagent_type(self, variant_family: str) -> str:
        """The sub-agent type for a variant family: 'gen' or 'spec'."""
        return self.spec if variant_family == "spec" else self.gen


def _wave_rules(data: Mapping[str, Any]) -> list[InitErrorDetails]:
    """The problems of `data`'s waves against its `need_delegation`, read from the input as
    pydantic would read those two fields (a value it refuses is a field problem already)."""
    waves = data.get("waves", [])
    if not isinstance(waves, list | tuple):
        return []
    rules = [
        _rule_error(("waves", i), wave, "a wave must list at least one sub-agent")
        for i, wave in enumerate(waves)
        if isinstance(wave, list | tuple) and not wave
    ]
    try:
        need = _BOOL.validate_python(data.get("need_delegation"))
    except ValidationError:
        return rules
    if need and not waves:
        rules.insert(0, _rule_error(("need_delegation",), need, "true needs at least one wave"))
    elif not need and waves:
        rules.insert(
            0,
            _rule_error(
                ("need_delegation",),
                need,
                "false means the main agent works alone, so waves must be empty",
            ),
        )
    return rules


class DelegationPrior(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    task: str = Field(min_length=1)
    need_delegation: StrictBool  # `0` or "yes" was read as false or true
    waves: list[list[PriorUnit]] = Field(default_factory=list)

    @model_validator(mode="wrap")
    @classmethod
    def _waves_match_need(
        cls, data: Any, handler: ModelWrapValidatorHandler[DelegationPrior]
    ) -> DelegationPrior:
        rules = _wave_rules(data) if isinstance(data, Mapping) else []
        prior: DelegationPrior = _with_rule_errors(cls.__name__, data, handler, rules)
        return prior

    @property
    def units(self) -> list[PriorUnit]:
        return [u for wave in self.waves for u in wave]

    @property
    def label_waves(self) -> list[list[str]]:
        return [[u.label for u in wave] for wave in self.waves]
