"""System prompts and task prompts: a profile's principles plus what the runtime adds."""

from __future__ import annotations

from contracts.prior import DelegationPrior
from harness.delegation import AGENT, AGENT_SWARM
from harness.profiles import PLANNER, Profile

WORLD_NOTE = (
    "## Environment\nToday is {today}. File tools work inside this episode's workspace folder: give paths "
    "relative to it (for example `Report.xlsx`). Only the tools you are given exist."
)


PLAN_FIRST_NOTE = (
    "## Plan first\nYour first action must be an `{agent}` call with subagent_type `{planner}`: until one "
    "of your steps starts it, every other tool call is refused and not run."
)
"""What the runtime adds for a `plan-first` variant: the rule it enforces (episode.py), whatever
the variant's principles say."""


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
    if variant.header.delegation == "plan-first":
        parts.append(PLAN_FIRST_NOTE.format(agent=AGENT, planner=PLANNER))
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
        offered = set(variant.header.subagents or ())
        lines = []
        for i, wave in enumerate(prior.waves, start=1):
            lines.append(f"Wave {i} (start these sub-agents together, in one message):")
            for u in wave:
                # the type of the family the variant offers (a variant of spec roles gets u.spec)
                kind = u.spec if u.gen not in offered and u.spec in offered else u.gen
                lines.append(f"- {u.description} -> sub-agent type `{kind}` ({u.mode})")
        plan = "\n".join(lines)
    return f"{prompt}\n\n## Delegation plan (golden prior)\n{plan}"
