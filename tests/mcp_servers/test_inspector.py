"""Every server, driven over stdio by an independent client: the official MCP Inspector CLI.

For each server in the registry (whatever servers exist when the test runs), three Inspector
runs against `python -m mcp_servers.<name> --db sqlite:///<tmp>/w.sqlite --workspace <tmp>`:
`tools/list` (every tool carries readOnlyHint and its function label), one read-only tool call
that succeeds, and one call with an argument of the wrong type, which must come back as a tool
error (the Inspector's exit code 5), not as a crash. The first run also proves a server seeds
an empty database by itself.

Needs Node 22 and the Inspector (`.ci/setup.d/node22.sh` installs both and exports
MSEVAL_NODE22 and MSEVAL_INSPECTOR); skipped without them. Each run starts a Python server
(about a second), so servers are inspected concurrently by a thread pool.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from contracts.labels import LABELS, label_mode
from mcp_servers.common import registry

NODE_ENV, INSPECTOR_ENV = "MSEVAL_NODE22", "MSEVAL_INSPECTOR"
# EXIT_CODES.TOOL_ERROR of @modelcontextprotocol/inspector 2.x: the tool answered isError:true
# (or does not exist); 0 is success, 1 a usage error, 4 an unreachable server.
TOOL_ERROR_EXIT = 5
# A cold start imports the SDK and seeds the server's tables: about a second on an idle machine,
# but the Inspector's default connect timeout (15 s) was exceeded on a 2-core machine at load 12.
RUN_TIMEOUT_S = 180
CONNECT_TIMEOUT_MS = 120_000
# The runs are CPU-bound (a Python and a Node start each): more workers than cores only make
# each run slower.
WORKERS = max(2, os.cpu_count() or 1)
REPO = Path(__file__).resolve().parents[2]
# A read-only call per server that succeeds on the seeded world. Servers not listed use their
# first read-only tool without required arguments; add a row when a server has none.
READ_CALLS: dict[str, tuple[str, dict[str, Any]]] = {
    "calendar": ("list_events", {"start": "2026-11-23", "end": "2026-11-24", "calendar": "Work"}),
    "excel": ("list_workbooks", {}),
    "lms": ("get_course", {"course": "CS101"}),
    "local": ("todo_read", {}),
    "mail": ("list_messages", {"unread_only": True, "page_size": 3}),
    "pptx": ("list_decks", {}),
    "sheets": ("read_range", {"spreadsheet_id": 1, "range": "Summary!A1:C3"}),
    "terminal": ("find", {"path": ".", "maxdepth": 1}),
    "wiki": ("search_pages", {"query": "roadmap"}),
    "word": ("list_documents", {}),
}

_tools = (os.environ.get(NODE_ENV, ""), os.environ.get(INSPECTOR_ENV, ""))
# One worker runs the module's fixture (every server): this file runs on one worker (`make test`:
# --dist loadfile).
pytestmark = pytest.mark.skipif(
    not all(_tools) or not all(Path(p).is_file() for p in _tools),
    reason=f"no MCP Inspector: run .ci/setup.d/node22.sh and export {NODE_ENV} and {INSPECTOR_ENV}",
)


@dataclass
class Run:
    args: list[str]
    returncode: int
    stdout: str
    stderr: str

    def result(self) -> dict[str, Any]:
        """The `result` of the Inspector's JSON output (empty when there is none)."""
        for line in reversed(self.stdout.strip().splitlines()):
            try:
                return dict(json.loads(line).get("result") or {})
            except (ValueError, AttributeError):
                continue
        return {}

    def why(self) -> str:
        return f"inspector {' '.join(self.args)} -> exit {self.returncode}\n{self.stdout[-2000:]}\n{self.stderr[-2000:]}"


@dataclass
class Inspection:
    server: str
    runs: dict[str, Run] = field(default_factory=dict)
    read_call: tuple[str, dict[str, Any]] | None = None
    wrong_call: tuple[str, dict[str, Any]] | None = None
    seconds: float = 0.0


def _inspector(server: str, folder: Path, *method: str) -> Run:
    target = [sys.executable, "-m", f"mcp_servers.{server}", "--db", f"sqlite:///{folder}/w.sqlite",
              "--workspace", str(folder)]  # fmt: skip
    args = [
        "--cli",
        "--format",
        "json",
        "--connect-timeout",
        str(CONNECT_TIMEOUT_MS),
        "--cwd",
        str(REPO),
        *target,
        *method,
    ]
    env = {
        **os.environ,
        # Keep the Inspector's own files out of $HOME.
        "MCP_CATALOG_PATH": str(folder / "inspector-catalog.json"),
        "MCP_CLIENT_CONFIG_PATH": str(folder / "inspector-client.json"),
        "NO_COLOR": "1",
    }
    try:
        done = subprocess.run(
            [_tools[0], _tools[1], *args],
            capture_output=True,
            text=True,
            timeout=RUN_TIMEOUT_S,
            env=env,
            check=False,
        )
    except subprocess.TimeoutExpired as exc:
        return Run(args=[*method], returncode=-1, stdout=str(exc.stdout or ""), stderr=f"timed out: {exc}")
    return Run(args=[*method], returncode=done.returncode, stdout=done.stdout, stderr=done.stderr)


def _children_cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def _accepts_object(schema: dict[str, Any]) -> bool:
    kinds = [schema.get("type")] + [s.get("type") for s in schema.get("anyOf", [])]
    return "object" in kinds or not any(kinds)


def _pick_read(server: str, tools: list[dict[str, Any]]) -> tuple[str, dict[str, Any]] | None:
    if server in READ_CALLS:
        return READ_CALLS[server]
    for t in tools:
        if t.get("annotations", {}).get("readOnlyHint") and not t.get("inputSchema", {}).get("required"):
            return t["name"], {}
    return None


def _pick_wrong(tools: list[dict[str, Any]]) -> tuple[str, dict[str, Any]] | None:
    """A call giving an object where the schema wants something else (a read tool if possible)."""
    ordered = sorted(tools, key=lambda t: not t.get("annotations", {}).get("readOnlyHint"))
    for t in ordered:
        for prop, schema in t.get("inputSchema", {}).get("properties", {}).items():
            if not _accepts_object(schema):
                return t["name"], {prop: {"wrong": "type"}}
    return None


def _inspect(server: str, folder: Path) -> Inspection:
    """List, one read call and one wrong call, in that order (the first run seeds the database)."""
    out = Inspection(server)
    started = time.perf_counter()
    folder.mkdir(parents=True, exist_ok=True)
    out.runs["list"] = _inspector(server, folder, "--method", "tools/list")
    tools = out.runs["list"].result().get("tools", [])
    out.read_call, out.wrong_call = _pick_read(server, tools), _pick_wrong(tools)
    for key, call in (("read", out.read_call), ("wrong", out.wrong_call)):
        if call is not None:
            name, arguments = call
            out.runs[key] = _inspector(
                server,
                folder,
                "--method",
                "tools/call",
                "--tool-name",
                name,
                "--tool-args-json",
                json.dumps(arguments),
            )
    out.seconds = time.perf_counter() - started
    return out


@pytest.fixture(scope="module")
def inspections(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Inspection]:
    base = tmp_path_factory.mktemp("inspector")
    started = time.perf_counter()
    cpu_before = _children_cpu()
    with ThreadPoolExecutor(max_workers=WORKERS) as pool:
        done = dict(
            zip(registry.names(), pool.map(lambda n: _inspect(n, base / n), registry.names()), strict=True)
        )
    total, cpu = time.perf_counter() - started, _children_cpu() - cpu_before
    runs = sum(len(i.runs) for i in done.values())
    slowest = sorted(done.values(), key=lambda i: -i.seconds)[:3]
    print(f"\ninspected {len(done)} servers ({runs} Inspector runs, {cpu / max(runs, 1):.2f} CPU-s each) in "
          f"{total:.1f} s with {WORKERS} workers; slowest: "
          + ", ".join(f"{i.server} {i.seconds:.1f} s" for i in slowest))  # fmt: skip
    return done


@pytest.mark.parametrize("server", registry.names())
def test_inspector_lists_annotated_tools(inspections: dict[str, Inspection], server: str) -> None:
    run = inspections[server].runs["list"]
    assert run.returncode == 0, run.why()
    tools = run.result().get("tools", [])
    assert tools, run.why()
    for t in tools:
        hint = t.get("annotations", {}).get("readOnlyHint")
        assert isinstance(hint, bool), f"{server}.{t['name']}: no readOnlyHint"
        label = t.get("_meta", {}).get("label")
        assert label in LABELS, f"{server}.{t['name']}: function label {label!r}"
        bookkeeping = t.get("_meta", {}).get("bookkeeping", False)
        assert bookkeeping or (label_mode(label) == "read-only") == hint, (
            f"{server}.{t['name']}: {label} vs {hint}"
        )
        assert t.get("description") and t.get("inputSchema", {}).get("type") == "object", t["name"]


@pytest.mark.parametrize("server", registry.names())
def test_inspector_read_call_succeeds(inspections: dict[str, Inspection], server: str) -> None:
    found = inspections[server]
    assert found.read_call is not None, (
        f"{server} has no read-only tool without required arguments: add a call to READ_CALLS"
    )
    run = found.runs["read"]
    assert run.returncode == 0, run.why()
    result = run.result()
    assert result.get("isError") is False and result.get("content"), run.why()


@pytest.mark.parametrize("server", registry.names())
def test_inspector_wrong_arguments_are_a_tool_error(inspections: dict[str, Inspection], server: str) -> None:
    found = inspections[server]
    assert found.wrong_call is not None, f"{server}: no tool argument to give a wrong type"
    run = found.runs["wrong"]
    assert run.returncode == TOOL_ERROR_EXIT, run.why()
    result = run.result()
    assert result.get("isError") is True, run.why()
    assert "validation error" in json.dumps(result), run.why()
