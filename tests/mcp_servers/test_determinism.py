"""Results are byte-for-byte the same in every process: key order must not depend on
PYTHONHASHSEED (an ORM-loaded row's `model_dump()` order did; `tooling.fields` keeps column order)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from mcp_servers.kitchen.schema import KitchenRecipe
from mcp_servers.lms.schema import LmsCourse, LmsStudent
from mcp_servers.railway.schema import RailStation
from tests.mcp_servers.support import World, as_data, serve

REPO = Path(__file__).resolve().parents[2]

# Tools whose results were built with model_dump() of ORM rows.
CALLS = [
    ("lms", "list_courses", {}),
    ("lms", "get_course", {"course": "CS101"}),
    ("lms", "get_student", {"student": "S00001"}),
    ("lms", "list_assignments", {"course": "CS101"}),
    ("lms", "list_announcements", {"course": "CS101"}),
    ("mail", "list_contacts", {"query": "Finance"}),
    ("calendar", "list_calendars", {}),
    ("scholar", "get_paper", {"paper_id": 3}),
    ("scholar", "get_author", {"author": "1"}),
    ("kitchen", "get_recipe", {"recipe": "1"}),
    ("kitchen", "list_catering_orders", {"page_size": 3}),
    ("railway", "search_stations", {"query": "a"}),
    ("railway", "search_passengers", {"query": "P0000"}),
]

SCRIPT = """
import asyncio, json, sys, tempfile
from pathlib import Path
from tests.mcp_servers.support import make_world, serve, text

async def main():
    world = make_world(Path(tempfile.mkdtemp(dir=sys.argv[1])))
    out = []
    for server, tool, args in json.loads(sys.argv[2]):
        async with serve(server, world) as client:
            out.append(text(await client.call_tool(tool, args)))
    print(json.dumps(out))

asyncio.run(main())
"""


def _run(seed: str, tmp_path: Path) -> list[str]:
    env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(REPO)}
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(tmp_path), json.dumps(CALLS)],
        env=env, cwd=REPO, capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    return list(json.loads(done.stdout.strip().splitlines()[-1]))


def test_results_do_not_depend_on_the_hash_seed(tmp_path: Path) -> None:
    runs = [_run(seed, tmp_path) for seed in ("1", "2", "3")]
    for (server, tool, _), *texts in zip(CALLS, *runs, strict=True):
        assert len(set(texts)) == 1, f"{server}.{tool} differs between processes"
        assert not texts[0].startswith("Error"), texts[0]


async def test_rows_come_in_column_order(world: World) -> None:
    """The order is the table's, not whatever order the ORM loaded the attributes in."""
    async with serve("lms", world) as client:
        course = as_data(await client.call_tool("get_course", {"course": "CS101"}))
        assert list(course)[: len(LmsCourse.model_fields)] == list(LmsCourse.model_fields)
        student = as_data(await client.call_tool("get_student", {"student": "S00001"}))
        assert list(student)[: len(LmsStudent.model_fields)] == list(LmsStudent.model_fields)
    async with serve("kitchen", world) as client:
        recipe = as_data(await client.call_tool("get_recipe", {"recipe": "1"}))
        declared = [k for k in KitchenRecipe.model_fields if k != "steps"]
        assert list(recipe)[: len(declared)] == declared
    async with serve("railway", world) as client:
        stations = as_data(await client.call_tool("search_stations", {"query": "a"}))
        assert list(stations[0]) == [k for k in RailStation.model_fields if k != "id"]
