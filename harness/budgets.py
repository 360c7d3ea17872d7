"""Budgets (SPEC §2) and the termination reasons they produce.

Defaults are the paper's; a run may override them, and a task's `budgets:` overrides the run.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from contracts.numbers import NotBool

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


# The most each budget may be: far above any real run's need (and any model's context window),
# so that a typo (an extra three zeros) is refused at once rather than found by a run that never
# stops. The README lists them.
MAX_STEPS = 100_000
MAX_WALL_TIME_S = 7 * 24 * 3600.0  # a week per episode
MAX_CONTEXT_TOKENS = 100_000_000
MAX_LOOP_REPEATS = MAX_STEPS
MAX_API_RETRIES = 1_000
MAX_WAVE_CONCURRENCY = 10_000
MAX_TOOL_TIMEOUT_S = 24 * 3600.0  # a day per MCP call
MAX_TOOL_RESULT_BYTES = 100_000_000

# One type per budget, so that the run's budgets and a task's overrides keep the same bounds.
Steps = Annotated[int, NotBool, Field(ge=1, le=MAX_STEPS)]
WallTime = Annotated[float, NotBool, Field(gt=0, le=MAX_WALL_TIME_S)]
ContextTokens = Annotated[int, NotBool, Field(ge=1, le=MAX_CONTEXT_TOKENS)]
LoopRepeats = Annotated[int, NotBool, Field(ge=2, le=MAX_LOOP_REPEATS)]
ApiRetries = Annotated[int, NotBool, Field(ge=0, le=MAX_API_RETRIES)]
WaveConcurrency = Annotated[int, NotBool, Field(ge=1, le=MAX_WAVE_CONCURRENCY)]
ToolTimeout = Annotated[float, NotBool, Field(gt=0, le=MAX_TOOL_TIMEOUT_S)]
ToolResultBytes = Annotated[int, NotBool, Field(ge=256, le=MAX_TOOL_RESULT_BYTES)]


class Budgets(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    max_steps: Steps = Field(default=100, description="steps per agent (main and each sub-agent)")
    wall_time_s: WallTime = Field(default=7200.0, description="wall time per episode")
    context_tokens: ContextTokens = Field(default=128_000, description="context window per agent")
    loop_repeats: LoopRepeats = Field(
        default=6, description="identical consecutive tool calls that stop an agent"
    )
    api_retries: ApiRetries = Field(default=10, description="retries per model call")
    wave_concurrency: WaveConcurrency = Field(default=128, description="sub-agents running at once per wave")
    tool_timeout_s: ToolTimeout = Field(default=60.0, description="timeout of one MCP call")
    tool_result_bytes: ToolResultBytes = Field(default=32_000, description="cap on one tool result")

    def merged(self, overrides: dict[str, Any] | None) -> Budgets:
        """These budgets with `overrides` applied (validated)."""
        if not overrides:
            return self
        return Budgets.model_validate({**self.model_dump(), **overrides})


class BudgetOverrides(BaseModel):
    """A task's or run's partial budgets: every field optional, unknown keys rejected."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    max_steps: Steps | None = None
    wall_time_s: WallTime | None = None
    context_tokens: ContextTokens | None = None
    loop_repeats: LoopRepeats | None = None
    api_retries: ApiRetries | None = None
    wave_concurrency: WaveConcurrency | None = None
    tool_timeout_s: ToolTimeout | None = None
    tool_result_bytes: ToolResultBytes | None = None

    def as_dict(self) -> dict[str, Any]:
        return self.model_dump(exclude_none=True)
