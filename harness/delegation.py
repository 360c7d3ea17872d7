"""Delegation (SPEC §2): the `Agent` and `AgentSwarm` tools, and waves.

All sub-agents started by one main-agent step — one `AgentSwarm` call, or all the `Agent`
calls of that message — form one wave and run concurrently, at most `wave_concurrency` at a
time (the rest wait for a slot). The names and argument names follow the Kimi Code harness.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from harness.models.base import ToolCall, ToolSpec

AGENT = "Agent"
AGENT_SWARM = "AgentSwarm"
DELEGATION_TOOLS = frozenset({AGENT, AGENT_SWARM})
MIN_SWARM, MAX_SWARM = 2, 128
ITEM = "{{item}}"


def tool_specs(subagent_types: list[str]) -> list[ToolSpec]:
    """The two delegation tools, with the variant's sub-agent types as an enum."""
    agent = ToolSpec(
        name=AGENT,
        description=(
            "Start one sub-agent on a sub-task (heterogeneous work). It runs in its own fresh context, "
            "sees only `prompt`, and returns {agent_id, status, steps, summary}. Several Agent calls in "
            "one message form one wave and run in parallel. Pass `resume` (an earlier agent_id) instead of "
            "`subagent_type` to continue that sub-agent's own context."
        ),
        input_schema={
            "type": "object",
            "properties": {
                "description": {"type": "string", "description": "a short name of the sub-task (3-8 words)"},
                "prompt": {"type": "string", "description": "the complete sub-task instructions"},
                "subagent_type": {"type": "string", "enum": subagent_types},
                "resume": {
                    "type": ["string", "null"],
                    "description": "agent_id of an earlier sub-agent to continue",
                },
            },
            "required": ["description", "prompt"],
            "additionalProperties": False,
        },
    )
    swarm = ToolSpec(
        name=AGENT_SWARM,
        description=(
            f"Start one sub-agent per item (homogeneous work), all in parallel as one wave: each gets "
            f"`prompt_template` with {ITEM} replaced by its item. {MIN_SWARM} to {MAX_SWARM} items, all prompts "
            "distinct. It must be the only tool call in its message. Returns the results in item order."
        ),
        input_schema={
            "type": "object",
            "properties": {
                "description": {"type": "string"},
                "subagent_type": {"type": "string", "enum": subagent_types},
                "prompt_template": {"type": "string", "description": f"instructions containing {ITEM}"},
                "items": {
                    "type": "array",
                    "items": {"type": "string"},
                    "minItems": MIN_SWARM,
                    "maxItems": MAX_SWARM,
                },
                "resume_agent_ids": {
                    "type": ["object", "null"],
                    "additionalProperties": {"type": "string"},
                    "description": "item -> agent_id to continue for that item",
                },
            },
            "required": ["description", "subagent_type", "prompt_template", "items"],
            "additionalProperties": False,
        },
    )
    return [agent, swarm]


class DelegationError(ValueError):
    """A delegation call that is refused; the message goes back to the model as a tool error."""


@dataclass(frozen=True)
class Launch:
    """One sub-agent to start in a wave: new (`subagent_type`) or resumed (`resume`)."""

    call_id: str
    description: str
    prompt: str
    subagent_type: str | None
    resume: str | None
    item: str | None = None  # an AgentSwarm's item; None for an Agent call

    @property
    def by_agent_call(self) -> bool:
        return self.item is None


def _text(args: dict[str, Any], key: str, required: bool = True) -> str | None:
    value = args.get(key)
    if value is None and not required:
        return None
    if not isinstance(value, str) or not value.strip():
        raise DelegationError(f"'{key}' must be a non-empty string")
    return value


def _check_type(subagent_type: str | None, types: list[str]) -> None:
    if subagent_type is not None and subagent_type not in types:
        raise DelegationError(f"unknown subagent_type {subagent_type!r}; available: {', '.join(types)}")


class Resumable:
    """What `resume` may name in one main-agent step: any earlier sub-agent (a run id; runs of
    one resumed sub-agent share its context), each context at most once per step, and none
    that `blocked` (context -> why, or None) says cannot continue."""

    def __init__(
        self,
        contexts: Mapping[str, Any],
        blocked: Callable[[Any], str | None],
        type_of: Callable[[Any], str] | None = None,
    ) -> None:
        self.contexts = contexts
        self.blocked = blocked
        self.type_of = type_of
        self.claimed: dict[int, str] = {}

    def claim(self, agent_id: str, of_type: str | None = None) -> None:
        """Claim `agent_id`'s context for a resume; `of_type`: the sub-agent type it must be (an
        AgentSwarm's sub-agents are all of its `subagent_type`)."""
        context = self.contexts.get(agent_id)
        if context is None:
            raise DelegationError(f"no sub-agent {agent_id!r} to resume")
        if of_type is not None and self.type_of is not None and (kind := self.type_of(context)) != of_type:
            raise DelegationError(
                f"sub-agent {agent_id!r} is of type {kind!r}, not {of_type!r}: a swarm's sub-agents are all "
                "of its subagent_type"
            )
        key = id(context)
        why = self.blocked(context)
        if why is not None:
            raise DelegationError(f"sub-agent {agent_id!r} {why} and cannot be resumed")
        if key in self.claimed:
            raise DelegationError(
                f"sub-agent {agent_id!r} is already resumed in this step (as {self.claimed[key]!r}); "
                "resume each sub-agent once"
            )
        self.claimed[key] = agent_id


def parse_agent(call: ToolCall, types: list[str], resumable: Resumable) -> Launch:
    args = call.arguments or {}
    unknown = set(args) - {"description", "prompt", "subagent_type", "resume"}
    if unknown:
        raise DelegationError(f"unknown argument(s) {sorted(unknown)}")
    description, prompt = _text(args, "description"), _text(args, "prompt")
    subagent_type, resume = _text(args, "subagent_type", False), _text(args, "resume", False)
    if (subagent_type is None) == (resume is None):
        raise DelegationError(
            "give exactly one of 'subagent_type' (a new sub-agent) and 'resume' (an earlier agent_id)"
        )
    _check_type(subagent_type, types)
    if resume is not None:
        resumable.claim(resume)
    assert description is not None and prompt is not None
    return Launch(call.id, description, prompt, subagent_type, resume)


def parse_swarm(call: ToolCall, types: list[str], resumable: Resumable) -> list[Launch]:
    args = call.arguments or {}
    unknown = set(args) - {"description", "subagent_type", "prompt_template", "items", "resume_agent_ids"}
    if unknown:
        raise DelegationError(f"unknown argument(s) {sorted(unknown)}")
    description, template = _text(args, "description"), _text(args, "prompt_template")
    subagent_type = _text(args, "subagent_type")
    _check_type(subagent_type, types)
    items = args.get("items")
    if not isinstance(items, list) or not all(isinstance(i, str) for i in items):
        raise DelegationError("'items' must be a list of strings")
    if not MIN_SWARM <= len(items) <= MAX_SWARM:
        raise DelegationError(
            f"AgentSwarm takes {MIN_SWARM} to {MAX_SWARM} items, got {len(items)}; use Agent for one sub-agent"
        )
    assert template is not None and description is not None
    prompts = [template.replace(ITEM, item) for item in items]
    if not all(prompt.strip() for prompt in prompts):
        raise DelegationError("every prompt must be non-empty: give non-empty items or more prompt_template")
    if len(set(prompts)) != len(prompts):
        raise DelegationError(
            f"the prompts must be distinct: put {ITEM} in prompt_template and give distinct items"
        )
    resumes = args.get("resume_agent_ids")
    if resumes is None:
        resumes = {}
    # `[]`, `""` or `false` read as "no resumes", and `{"x": 7}` resumed agent '7'
    if not isinstance(resumes, dict) or not all(isinstance(a, str) for a in resumes.values()):
        raise DelegationError("'resume_agent_ids' must map items to agent ids (strings), or be null")
    for item, agent_id in resumes.items():
        if item not in items:
            raise DelegationError(f"resume_agent_ids names {item!r}, which is not one of the items")
        resumable.claim(agent_id, subagent_type)
    return [
        Launch(
            call.id,
            f"{description}: {item}",
            prompt,
            None if item in resumes else subagent_type,
            resumes.get(item),
            item,
        )
        for item, prompt in zip(items, prompts, strict=True)
    ]


def result_payload(
    agent_id: str, status: str, steps: int, summary: str, item: str | None = None
) -> dict[str, Any]:
    out: dict[str, Any] = {"agent_id": agent_id, "status": status, "steps": steps, "summary": summary}
    if item is not None:
        out = {"item": item, **out}
    return out


def render(payload: Any) -> str:
    return json.dumps(payload, ensure_ascii=False)


def _json_bytes(text: str) -> int:
    """The bytes `text` takes inside rendered JSON (escapes included, quotes not)."""
    return len(json.dumps(text, ensure_ascii=False).encode()) - 2


def _cut(text: str, limit: int) -> tuple[str, bool]:
    """`text` within `limit` bytes of JSON, with a marker saying how much there was."""
    if _json_bytes(text) <= limit:
        return text, False
    marker = f" [… cut by the harness: {len(text.encode()):,} bytes in all]"
    room = limit - _json_bytes(marker)
    low, high = 0, len(text)  # the longest prefix whose JSON fits the room
    while low < high:
        mid = (low + high + 1) // 2
        if _json_bytes(text[:mid]) <= room:
            low = mid
        else:
            high = mid - 1
    return text[:low] + marker, True


def render_capped(entries: list[dict[str, Any]], swarm: bool, limit: int) -> tuple[str, bool]:
    """The delegation result of `entries` (an AgentSwarm's list, or an Agent's one entry) as JSON
    of at most `limit` bytes, and whether anything was cut. Items echoed back get at most a
    quarter of the limit between them; the summaries share what the rest leaves, equally, each
    cut with a marker; so the result stays valid JSON and every sub-agent keeps a say. Only
    when even that cannot fit (a cap lowered below the entries' fixed fields) is the JSON
    returned longer, for the caller to cut as any tool result."""
    text = render(entries if swarm else entries[0])
    if len(text.encode()) <= limit:
        return text, False
    entries = [dict(e) for e in entries]
    item_share = limit // 4 // len(entries)
    for entry in entries:
        if "item" in entry:
            entry["item"] = _cut(entry["item"], item_share)[0]
    summaries = [e["summary"] for e in entries]
    for entry in entries:
        entry["summary"] = ""
    room = limit - len(render(entries if swarm else entries[0]).encode())
    share = room // len(entries)
    for entry, summary in zip(entries, summaries, strict=True):
        entry["summary"] = _cut(summary, share)[0] if share > 0 else ""
    return render(entries if swarm else entries[0]), True
