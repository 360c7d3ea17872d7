"""The `mseval.score/1` document (SPEC §10) as pydantic models.

The keys of SPEC §10 come first in each setting row, with the meaning given there (rates are
fractions, undefined values are null, the baseline row has its delegation fields null). What
the aggregation contract asks to be reported beside them — the counts behind every denominator,
what was left out, the bootstrap intervals, the embedder of IDS — follows in extra keys.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic_core import PydanticSerializationError

SCORE_SCHEMA: Literal["mseval.score/1"] = "mseval.score/1"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Counts(_Strict):
    """The numerators, denominators and left-out counts behind a setting row."""

    completed: int
    successes: int
    no_verdict: int = 0
    """Completed episodes with success null: failures."""
    abnormal_success: int = 0
    """Completed episodes with success true after an abnormal termination: failures."""
    duplicates: int = 0
    no_prior: int = 0
    d_need: int | None = None
    d_no_need: int | None = None
    under_delegated: int | None = None
    over_delegated: int | None = None
    delegated: int | None = None
    hits_delegated: int | None = None
    run_units: int | None = None
    hits_need: int | None = None
    gold_units: int | None = None
    paired: int | None = None
    unpaired: int | None = None
    mas_absent: int | None = None
    cost_unknown: int = 0
    cost_unknown_d_del_plus: int | None = None
    taxonomy_left_out: int | None = None
    ids_defined: int = 0
    ids_undefined: int = 0
    empty_responses: int = 0
    upr_defined: int = 0
    upr_undefined: int = 0
    graph_single_node: int = 0


class Interval(_Strict):
    low: float
    high: float
    undefined: int


class SettingRow(_Strict):
    """One (model, variant) row of the score table."""

    model: str
    variant: str
    baseline: str | None
    tasks: int
    episodes: int
    absent: int
    coverage: float | None
    sr: float | None
    sr_conditional: float | None
    udr: float | None = None
    odr: float | None = None
    p_hit: float | None = None
    r_hit: float | None = None
    f1_hit: float | None = None
    d_del: int | None = None
    d_del_plus: int | None = None
    u_p: float | None = None
    u_e: float | None = None
    u_c: float | None = None
    u_p_pairwise: float | None = None
    u_e_pairwise: float | None = None
    u_c_pairwise: float | None = None
    msq: float | None = None
    mean_csteps: float | None = None
    mean_cost_usd: float | None = None
    ids: float | None = None
    upr: float | None = None
    taxonomy: dict[str, int] | None = None
    # Beyond SPEC §10's example: what the aggregation contract asks to report beside it.
    simulated: bool = False
    sr_diff: float | None = None
    """SR − SR of the baseline over paired (task, seed) episodes."""
    ids_embedder: str | None = None
    taxonomy_reasons: dict[str, dict[str, int]] | None = None
    ci95: dict[str, Interval | None] | None = None
    counts: Counts


class ScoreDocument(_Strict):
    """The whole `mseval.score/1` document."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    schema_: Literal["mseval.score/1"] = Field(default=SCORE_SCHEMA, alias="schema")
    identity: dict[str, Any]
    contract: dict[str, Any]
    warnings: list[str] = Field(default_factory=list)
    left_out: dict[str, Any] = Field(default_factory=dict)
    tagging: dict[str, Any] = Field(default_factory=dict)
    settings: list[SettingRow]

    def to_json(self, indent: int | None = 1) -> str:
        try:
            return self.model_dump_json(by_alias=True, indent=indent)
        except PydanticSerializationError:  # a lone surrogate in a name: JSON writes its \u escape
            return json.dumps(self.as_dict(), indent=indent)

    def as_dict(self) -> dict[str, Any]:
        return self.model_dump(mode="json", by_alias=True)
