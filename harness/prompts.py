"""System prompts and task prompts: a profile's principles plus what the runtime adds."""

from __future__ import annotations

from contracts.prior import DelegationPrior
from harness.delegation import AGENT, AGENT_SWARM
from harness.profiles import Profile

WORLD_NOTE = (
    "## Environment\nToday is {today}. File tools work inside this episode's workspace folder: give paths "
    "relative to it (for example `Report.xlsx`). Only the tools you are given exist."
)


def world_note(today: str) -> str:
    return WORLD_NOTE.format(today=today)


def main_system_prompt(variant: Profile, roles: dict[str, Profile], today: str) -> str:
    parts = [variant.principles, world_note(today)]
    if variant.delegates and roles:
        lines = [f"## Available sub-agent types (use them with `{AGENT}` or `{AGENT_SWARM}`)"]
        for name, role in roles.items():
            lines.append(
                f"- `{name}` ({role.header.mode}): {role.header.description} When to use: {role.header.whenToUse}"
            )
        parts.append("\n".join(lines))
    return "\n\n".join(parts)


def subagent_system_prompt(role: Profile, today: str) -> str:
    return f"{role.principles}\n\n{world_note(today)}"


def task_prompt(prompt: str, variant: Profile, prior: DelegationPrior | None) -> str:
    """The user message; the `oracle` variant appends the task's delegation prior."""
    if variant.header.delegation != "oracle" or prior is None:
        return prompt
    if not prior.need_delegation:
        plan = "No delegation is needed: work alone, without sub-agents."
    else:
        lines = []
        for i, wave in enumerate(prior.waves, start=1):
            lines.append(f"Wave {i} (start these sub-agents together, in one message):")
            for u in wave:
                lines.append(f"- {u.description} -> sub-agent type `{u.gen}` ({u.mode})")
        plan = "\n".join(lines)
    return f"{prompt}\n\n## Delegation plan (golden prior)\n{plan}"
