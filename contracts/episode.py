"""The episode record `mseval.episode/1` (SPEC §8): what the runtime writes and evaluation reads.

One JSON object per line in a `.jsonl` file. Only the fields of SPEC §8 are required in the
sense of the spec; the others default so that traces from other harnesses can be scored. The
optional extras (`reason`, `checks`, per-sub-agent `termination` and `writes_ok`, per-turn
`tools_ok`, timings) are written by mseval and used where present.
"""

from __future__ import annotations

import gc
import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationInfo,
    field_validator,
    model_validator,
)

SCHEMA: Literal["mseval.episode/1"] = "mseval.episode/1"

# The largest step count (a main agent's, a sub-agent's, critical steps) and cost of one
# episode a record may give: far above any episode, and low enough that scoring's sums and
# means over any number of records stay finite floats. Unbounded, two hand-written records of
# cost 1e308 overflowed math.fsum, and critical_steps 10**400 the float of the mean: `mseval
# score` died with a traceback instead of naming the line.
MAX_STEPS = 1_000_000_000
MAX_COST_USD = 1e9


def _whole(value: object) -> object:
    """A whole number written as a float (`3.0`, as JSON Schema's `integer` also takes) is that
    number; anything else goes on to the strict check, which refuses it."""
    if type(value) is float and value.is_integer():
        return int(value)
    return value


Count = Annotated[int, BeforeValidator(_whole)]
"""A count in a record. Records are read strictly (`parse_episode_lines`): `true`, `"3"` or `2.5` for a
count is a problem of its line, where pydantic's lax mode took `true` as 1 and `"3"` as 3."""

Status = Literal["completed", "absent"]
NORMAL_TERMINATIONS = frozenset({"claim_done", "text_only"})


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)


class Usage(_Strict):
    input_tokens: Count = Field(default=0, ge=0)
    cached_input_tokens: Count = Field(default=0, ge=0)
    # Part of input_tokens written to the provider's prompt cache (Anthropic's cache creation).
    cache_write_input_tokens: Count = Field(default=0, ge=0)
    # Part of cache_write_input_tokens written to the 1-hour cache (Anthropic's ttl "1h").
    cache_write_1h_input_tokens: Count = Field(default=0, ge=0)
    output_tokens: Count = Field(default=0, ge=0)
    reasoning_tokens: Count = Field(default=0, ge=0)

    def __add__(self, other: Usage) -> Usage:
        # Both sides are validated already; the sum needs no validation (a hot path: every call).
        return Usage.model_construct(
            input_tokens=self.input_tokens + other.input_tokens,
            cached_input_tokens=self.cached_input_tokens + other.cached_input_tokens,
            cache_write_input_tokens=self.cache_write_input_tokens + other.cache_write_input_tokens,
            cache_write_1h_input_tokens=self.cache_write_1h_input_tokens + other.cache_write_1h_input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            reasoning_tokens=self.reasoning_tokens + other.reasoning_tokens,
        )


class Turn(_Strict):
    """One main-agent step."""

    step: Count = Field(ge=1)
    text: str = ""
    tools: list[str] = Field(default_factory=list)
    tools_ok: Count | None = Field(default=None, ge=0, description="tool calls of this step that succeeded")


class MainRecord(_Strict):
    steps: Count = Field(ge=0, le=MAX_STEPS)
    response: str = ""
    turns: list[Turn] | None = None
    termination: str | None = None
    usage: Usage | None = None

    @field_validator("turns")
    @classmethod
    def _one_turn_per_step(cls, turns: list[Turn] | None, info: ValidationInfo) -> list[Turn] | None:
        """One entry per main-agent step (SPEC §8), none after the last: a second turn of one step
        made the agent graph a node without edges and an edge from a turn to itself, and a turn
        after the last step was a node of the graph at a step CSteps never counted."""
        seen: set[int] = set()
        for turn in turns or ():
            if turn.step in seen:
                raise ValueError(f"step {turn.step} is given by more than one turn")
            seen.add(turn.step)
        steps = info.data.get("steps")  # absent when `steps` itself is a problem
        if seen and steps is not None and max(seen) > steps:
            raise ValueError(f"step {max(seen)} is after the main agent's last step (main.steps is {steps})")
        return turns


class SubagentRecord(_Strict):
    id: str
    type: str
    mode: Literal["read-only", "writable"]
    description: str = ""
    prompt: str | None = None
    label: str | None = None
    resume_of: str | None = None
    steps: Count = Field(ge=0, le=MAX_STEPS)
    tools: list[str] = Field(default_factory=list)
    response: str = ""
    usage: Usage = Field(default_factory=Usage)
    termination: str | None = None
    writes_ok: Count | None = Field(default=None, ge=0, description="write tool calls that succeeded")
    started_s: float | None = None
    ended_s: float | None = None

    @model_validator(mode="after")
    def _ends_after_it_starts(self) -> SubagentRecord:
        """A run that ended before it started drew a bar of negative width in the waves timeline
        (the report's, the viewer's) from a hand-written trace."""
        if self.started_s is not None and self.ended_s is not None and self.ended_s < self.started_s:
            raise ValueError(f"ended_s {self.ended_s} is before started_s {self.started_s}")
        return self


class WaveRecord(_Strict):
    index: Count = Field(ge=0)
    main_step: Count | None = Field(default=None, ge=1)
    subagents: list[SubagentRecord]


class CheckResult(_Strict):
    name: str
    passed: bool
    message: str = ""


class EpisodeRecord(_Strict):
    model_config = ConfigDict(extra="forbid", populate_by_name=True, allow_inf_nan=False)

    schema_: Literal["mseval.episode/1"] = Field(default=SCHEMA, alias="schema")
    task_id: str
    model: str
    variant: str
    seed: Count = 0
    status: Status
    success: bool | None
    termination: str | None = None
    reason: str | None = None
    main: MainRecord = Field(default_factory=lambda: MainRecord(steps=0))
    waves: list[WaveRecord] = Field(default_factory=list)
    critical_steps: Count | None = Field(default=None, ge=0, le=MAX_STEPS)
    usage: Usage = Field(default_factory=Usage)
    cost_usd: float | None = Field(default=None, ge=0, le=MAX_COST_USD)
    checks: list[CheckResult] | None = None
    episode_id: str | None = None
    run_id: str | None = None
    duration_s: float | None = Field(default=None, ge=0)
    price_version: str | None = None

    @field_validator("task_id", "model", "variant")
    @classmethod
    def _a_name(cls, name: str) -> str:
        """An empty name was scored as any other: a score table's row with a blank model or
        variant, a task nobody can look up."""
        if not name.strip():
            raise ValueError(f"must be a name, not {json.dumps(name)}")
        return name

    @field_validator("waves")
    @classmethod
    def _one_wave_per_index(cls, waves: list[WaveRecord]) -> list[WaveRecord]:
        """Two waves of one index were taken as two without a word, both `w0` (say) in the waves
        timeline and in warnings: which wave a message meant was anyone's guess."""
        seen: set[int] = set()
        for wave in waves:
            if wave.index in seen:
                raise ValueError(f"index {wave.index} is given by more than one wave")
            seen.add(wave.index)
        return waves

    @field_validator("waves")
    @classmethod
    def _one_subagent_per_id(cls, waves: list[WaveRecord]) -> list[WaveRecord]:
        """Two runs of one id were taken without a word: a `resume_of` naming that id could not
        say which run it continues, and in one wave the timeline drew both on one row. A resumed
        run has an id of its own, its `resume_of` naming the earlier run."""
        seen: set[str] = set()
        for sub in (s for wave in waves for s in wave.subagents):
            if sub.id in seen:
                raise ValueError(f"id {sub.id!r} is given to more than one sub-agent")
            seen.add(sub.id)
        return waves

    @model_validator(mode="after")
    def _waves_within_main_steps(self) -> EpisodeRecord:
        """A wave started after the main agent's last step was taken without a word: the waves
        timeline drew main-agent steps that CSteps did not count. Main steps 0 are unknown, not a
        main agent that never stepped: a record without `main` is written (`to_json`) with them."""
        if not self.waves or self.main.steps == 0:
            return self
        for n, wave in enumerate(self.waves):
            if wave.main_step is not None and wave.main_step > self.main.steps:
                raise ValueError(
                    f"waves.{n}.main_step: {wave.main_step} is after the main agent's last step "
                    f"(main.steps is {self.main.steps})"
                )
        return self

    @property
    def subagents(self) -> list[SubagentRecord]:
        return [s for w in self.waves for s in w.subagents]

    @property
    def delegated(self) -> bool:
        return any(w.subagents for w in self.waves)

    def to_json(self) -> str:
        return self.model_dump_json(by_alias=True)


@contextmanager
def gc_paused() -> Iterator[None]:
    """Hold off Python's cyclic garbage collector while many records are read or scored.

    Records hold no reference cycles, but the collector walks every live object again and
    again as they are allocated: reading 10,000 records took 1.9 s with it on and 0.45 s
    without, and scoring them carried the same cost (bench/scoring.py); reading a store's
    records took 2.5 times as long. Plain reference counting still frees what is dropped; the
    collector runs again afterwards.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


# What one run may plan, as `mseval run` takes it and scoring reads its identity: seeds per task,
# and episodes in all (settings × tasks × seeds). Far above any real run; without them a 12 KB
# FILE.runs.json planned 9 billion episodes, which scoring enumerated (13.8 GB), and
# `run --seeds 1000000000` took 1 GB before writing anything.
MAX_SEEDS = 100_000
MAX_PLANNED_EPISODES = 1_000_000


def runs_file_for(episodes: Path) -> Path:
    """`FILE.runs.json` beside `FILE.jsonl`: the run identities `mseval export` writes beside its
    records, and scoring reads."""
    name = episodes.name.removesuffix(".jsonl")
    return episodes.with_name(f"{name}.runs.json")
