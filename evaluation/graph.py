"""The agent graph of an episode (SPEC §9, GEMMAS), from a record or from a JSON file.

Node = one agent invocation: a main-agent turn (step) or a whole sub-agent run. Spatial edges
= messages between different agents: the main turn that delegates → each sub-agent it starts,
each sub-agent → the next main turn (which reads its summary). Temporal edges = the same
agent's consecutive turns: main turn k → k+1, and a sub-agent's run → its next run (a resume,
whichever of the agent's run ids `resume_of` names). Edges only
ever point from an earlier node to a later one, so the graph is acyclic by construction.

A record without `main.turns`, or with a wave whose `main_step` is missing or names no turn,
is scored with the main agent as a single node (`fallback` says why): its final response, and
an edge from it to each sub-agent run (none back, which would close a cycle).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from operator import attrgetter
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, StrictBool, ValidationError, field_validator

from contracts import EpisodeRecord, InputError, Problem
from contracts.jsonio import read_json
from contracts.numbers import Int
from contracts.yamlio import KeyPath, line_of, validation_problems

Edge = tuple[int, int]


@dataclass(slots=True)  # not frozen: a frozen dataclass is slower to build, and graphs are many
class Node:
    """One agent invocation: a main turn, a sub-agent run, or a node of a graph file."""

    kind: Literal["main", "sub", "agent"]
    name: str
    prompt: str = ""
    response: str = ""
    mode: str | None = None
    termination: str | None = None
    writes_ok: int | None = None
    tools_ok: int | None = None
    tool_calls: int = 0
    """Tool calls the main turn made (its `tools`), for traces without `tools_ok`."""
    contributes: bool | None = None
    """Declared contribution (graphs from JSON); None when not given."""


@dataclass(frozen=True)
class AgentGraph:
    """Nodes with spatial and temporal edges (index pairs, from → to)."""

    nodes: list[Node]
    spatial: list[Edge] = field(default_factory=list)
    temporal: list[Edge] = field(default_factory=list)
    fallback: str | None = None


def main_as_one_node(record: EpisodeRecord) -> str | None:
    """Why the record's main agent is one node of its graph (no turns, or a wave whose main_step
    names no turn), or None when each of its turns is a node."""
    steps = {t.step for t in record.main.turns or ()}
    if not steps:
        return "no main.turns in the record"
    waves = sorted(record.waves, key=attrgetter("index"))
    return next(
        (
            f"wave {w.index} has no main_step naming a turn"
            for w in waves
            if w.subagents and w.main_step not in steps
        ),
        None,
    )


def graph_of_record(record: EpisodeRecord) -> AgentGraph:
    """Build the agent graph of an episode record."""
    turns = sorted(record.main.turns or [], key=attrgetter("step"))
    waves = [w for w in sorted(record.waves, key=attrgetter("index")) if w.subagents]
    steps = [t.step for t in turns]
    fallback = main_as_one_node(record)
    nodes: list[Node] = []
    spatial: list[Edge] = []
    temporal: list[Edge] = []
    turn_node: dict[int, int] = {}
    if fallback is None:
        for turn in turns:
            turn_node[turn.step] = len(nodes)
            nodes.append(
                Node(
                    "main",
                    f"main:{turn.step}",
                    response=turn.text,
                    tools_ok=turn.tools_ok,
                    tool_calls=len(turn.tools),
                )
            )
        order = [turn_node[t.step] for t in turns]
        temporal.extend(zip(order, order[1:], strict=False))
    else:  # the main agent as one node: its final answer; its tool calls, else its delegations
        known = [t.tools_ok for t in turns if t.tools_ok is not None]
        nodes.append(
            Node(
                "main",
                "main",
                response=record.main.response,
                tools_ok=sum(known) if turns and len(known) == len(turns) else None,
                tool_calls=sum(len(t.tools) for t in turns) or sum(len(w.subagents) for w in waves),
            )
        )

    # A resume continues the agent's one context, whichever of its run ids it names (the runtime
    # keeps one state per agent): each run id → its agent (the first run's id), and each agent →
    # the node of its latest run, so a resume's temporal edge comes from the run just before it.
    agent_of: dict[str, str] = {}
    latest_run: dict[str, int] = {}
    for wave in waves:
        if fallback is None:
            assert wave.main_step is not None
            starter = turn_node[wave.main_step]
            following = next((s for s in steps if s > wave.main_step), None)
            reader = None if following is None else turn_node[following]
        else:  # the one main node starts every wave; no edge back to it, which would be a cycle
            starter, reader = 0, None
        for sub in wave.subagents:
            index = len(nodes)
            nodes.append(
                Node(
                    "sub",
                    f"sub:{sub.id}",
                    prompt=sub.prompt or sub.description,
                    response=sub.response,
                    mode=sub.mode,
                    termination=sub.termination,
                    writes_ok=sub.writes_ok,
                )
            )
            spatial.append((starter, index))
            if reader is not None:
                spatial.append((index, reader))
            agent = sub.id
            if sub.resume_of is not None and sub.resume_of in agent_of:
                agent = agent_of[sub.resume_of]
                temporal.append((latest_run[agent], index))
            agent_of[sub.id] = agent
            latest_run[agent] = index
    return AgentGraph(nodes, spatial, temporal, fallback)


class _GraphNodeFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str | None = None
    prompt: str
    response: str
    contributes: StrictBool | None = None  # "no" was read as false


class GraphFile(BaseModel):
    """A graph from another system: nodes with prompt and response, S and T as 0/1 matrices."""

    model_config = ConfigDict(extra="forbid")

    nodes: list[_GraphNodeFile]
    S: list[list[Int]]  # true/false refused, as in every number of mseval's files
    T: list[list[Int]]

    @field_validator("S", "T")
    @classmethod
    def _zero_one(cls, matrix: list[list[int]]) -> list[list[int]]:
        if any(v not in (0, 1) for row in matrix for v in row):
            raise ValueError("entries must be 0 or 1")
        return matrix


def _edges(matrix: list[list[int]]) -> list[Edge]:
    return [(i, j) for i, row in enumerate(matrix) for j, v in enumerate(row) if v]


def is_acyclic(n: int, edges: list[Edge]) -> bool:
    """Kahn's algorithm: True when every node can be ordered."""
    indegree = [0] * n
    successors: list[list[int]] = [[] for _ in range(n)]
    for i, j in edges:
        successors[i].append(j)
        indegree[j] += 1
    ready = [v for v in range(n) if indegree[v] == 0]
    seen = 0
    while ready:
        v = ready.pop()
        seen += 1
        for w in successors[v]:
            indegree[w] -= 1
            if indegree[w] == 0:
                ready.append(w)
    return seen == n


def graph_from_file_data(data: GraphFile, file: str, lines: dict[KeyPath, int]) -> AgentGraph:
    """Check shapes and acyclicity of a parsed graph file and build the graph; `lines`: the line
    of each value of the file, by its path."""
    n = len(data.nodes)
    problems = [
        Problem(file, line_of(lines, where), f"{name} must be a {n}×{n} matrix (one row and column per node)")
        for name, matrix in (("S", data.S), ("T", data.T))
        if (where := _misshapen(name, matrix, n)) is not None
    ]
    if problems:
        raise InputError(problems)
    spatial = _edges(data.S)
    if not is_acyclic(n, spatial):
        raise InputError.one(file, line_of(lines, ("S",)), "S has a cycle: the spatial graph must be acyclic")
    nodes = [
        Node(
            "agent",
            node.id or f"node:{i}",
            prompt=node.prompt,
            response=node.response,
            contributes=node.contributes,
        )
        for i, node in enumerate(data.nodes)
    ]
    return AgentGraph(nodes, spatial, _edges(data.T))


def _misshapen(name: str, matrix: list[list[int]], n: int) -> KeyPath | None:
    """Where `matrix` stops being n×n (its first row of another length, or itself), or None."""
    if len(matrix) != n:
        return (name,)
    return next(((name, i) for i, row in enumerate(matrix) if len(row) != n), None)


def load_graph_file(path: Path) -> AgentGraph:
    """Read a graph JSON file for `mseval gemmas`; each problem names the file and its line."""
    file = str(path)
    document = read_json(path)
    if not isinstance(document.data, dict):
        raise InputError.one(file, line_of(document.lines, ()), "expected a JSON object with nodes, S and T")
    try:
        data = GraphFile.model_validate(document.data)
    except ValidationError as exc:
        raise InputError(validation_problems(file, exc, document.lines)) from None
    return graph_from_file_data(data, file, document.lines)
