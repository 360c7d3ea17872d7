"""Budgets (SPEC §2) and the termination reasons they produce.

Defaults are the paper's; a run may override them, and a task's `budgets:` overrides the run.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

Termination = Literal[
    "claim_done",
    "text_only",
    "step_limit",
    "time_limit",
    "context_overflow",
    "loop_detected",
    "api_error",
    "harness_error",
]
NORMAL: frozenset[str] = frozenset({"claim_done", "text_only"})


class Budgets(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    max_steps: int = Field(default=100, ge=1, description="steps per agent (main and each sub-agent)")
    wall_time_s: float = Field(default=7200.0, gt=0, description="wall time per episode")
    context_tokens: int = Field(default=128_000, ge=1, description="context window per agent")
    loop_repeats: int = Field(
        default=6, ge=2, description="identical consecutive tool calls that stop an agent"
    )
    api_retries: int = Field(default=10, ge=0, description="retries per model call")
    wave_concurrency: int = Field(default=128, ge=1, description="sub-agents running at once per wave")
    tool_timeout_s: float = Field(default=60.0, gt=0, description="timeout of one MCP call")
    tool_result_bytes: int = Field(default=32_000, ge=256, description="cap on one tool result")

    def merged(self, overrides: dict[str, Any] | None) -> Budgets:
        """These budgets with `overrides` applied (validated)."""
        if not overrides:
            return self
        return Budgets.model_validate({**self.model_dump(), **overrides})


class BudgetOverrides(BaseModel):
    """A task's or run's partial budgets: every field optional, unknown keys rejected."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    max_steps: int | None = Field(default=None, ge=1)
    wall_time_s: float | None = Field(default=None, gt=0)
    context_tokens: int | None = Field(default=None, ge=1)
    loop_repeats: int | None = Field(default=None, ge=2)
    api_retries: int | None = Field(default=None, ge=0)
    wave_concurrency: int | None = Field(default=None, ge=1)
    tool_timeout_s: float | None = Field(default=None, gt=0)
    tool_result_bytes: int | None = Field(default=None, ge=256)

    def as_dict(self) -> dict[str, Any]:
        return self.model_dump(exclude_none=True)
