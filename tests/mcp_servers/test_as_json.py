"""`as_json`: every tool result is strict JSON, a non-finite number written as its name."""

from __future__ import annotations

import json
import math
from decimal import Decimal

from mcp_servers.common.tooling import as_json, json_number


def _refuse_constant(name: str) -> object:
    raise ValueError(f"not strict JSON: {name}")


def test_non_finite_floats_are_written_as_their_names() -> None:
    """Regression: the encoder wrote bare NaN and Infinity, which strict JSON parsers refuse."""
    value = {
        "v": [math.nan, math.inf, -math.inf, 1.5, None],
        "t": (math.inf,),
        "nested": {"x": [[-math.inf]]},
        math.inf: 1,
        "d": Decimal("Infinity"),
    }
    raw = as_json(value)
    assert raw == (
        '{"v":["NaN","Infinity","-Infinity",1.5,null],"t":["Infinity"],'
        '"nested":{"x":[["-Infinity"]]},"Infinity":1,"d":"Infinity"}'
    )
    json.loads(raw, parse_constant=_refuse_constant)  # no bare constant left
    assert as_json({"a": [1, 2.5, "é"], "b": (True, None)}) == '{"a":[1,2.5,"é"],"b":[true,null]}'


def test_json_number_keeps_finite_floats() -> None:
    assert json_number(0.1) == 0.1 and json_number(-2.0) == -2.0
    assert [json_number(x) for x in (math.inf, -math.inf, math.nan)] == ["Infinity", "-Infinity", "NaN"]
