"""The delegation prior (SPEC §6): the golden plan of waves for one task."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from contracts.labels import LABELS, label_mode

Mode = Literal["read-only", "writable"]


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

    @model_validator(mode="after")
    def _mode_matches_label(self) -> PriorUnit:
        if label_mode(self.label) != self.mode:
            raise ValueError(
                f"label {self.label!r} is {label_mode(self.label)}, but the unit says {self.mode}"
            )
        return self

    def subagent_type(self, variant_family: str) -> str:
        """The sub-agent type for a variant family: 'gen' or 'spec'."""
        return self.spec if variant_family == "spec" else self.gen


class DelegationPrior(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    task: str = Field(min_length=1)
    need_delegation: bool
    waves: list[list[PriorUnit]] = Field(default_factory=list)

    @model_validator(mode="after")
    def _waves_match_need(self) -> DelegationPrior:
        if self.need_delegation and not self.waves:
            raise ValueError("need_delegation is true but no waves are given")
        if not self.need_delegation and self.waves:
            raise ValueError("need_delegation is false: the main agent works alone, so waves must be empty")
        if any(not wave for wave in self.waves):
            raise ValueError("a wave must list at least one sub-agent")
        return self

    @property
    def units(self) -> list[PriorUnit]:
        return [u for wave in self.waves for u in wave]

    @property
    def label_waves(self) -> list[list[str]]:
        return [[u.label for u in wave] for wave in self.waves]
