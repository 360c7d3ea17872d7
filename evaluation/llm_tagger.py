"""An optional LLM function tagger and its agreement with the deterministic one (SPEC §6).

The model is injected as a small protocol — an async callable from a prompt to its text — so
evaluation never imports a provider SDK or the runtime; the CLI passes a real model, tests a
scripted one. Only sub-agents whose record lacks a label are tagged; the agreement (share of
equal labels and Cohen's kappa) is measured over those same sub-agents. An answer naming no
label (None) agrees with nothing, not even another None: two taggers that both found nothing
did not agree on a label.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from contracts import LABELS, READ_ONLY_LABELS, WRITABLE_LABELS, EpisodeRecord, SubagentRecord
from evaluation.records import EpisodeKey, episode_key
from evaluation.tagging import tag_subagent

SubagentKey = tuple[EpisodeKey, str]
"""(episode key, sub-agent id)."""

# Bounded so a large store does not open hundreds of model calls at once.
DEFAULT_CONCURRENCY = 8


class Complete(Protocol):
    """A language model as evaluation sees it: prompt in, text out."""

    async def __call__(self, prompt: str) -> str: ...


@dataclass(frozen=True)
class Agreement:
    """How often the LLM tagger and the deterministic tagger gave the same label."""

    n: int
    agreement: float | None
    kappa: float | None


@dataclass(frozen=True)
class LLMTagging:
    labels: dict[SubagentKey, str | None]
    agreement: Agreement


def tagging_prompt(sub: SubagentRecord) -> str:
    """The prompt that asks for one label of the sub-agent's mode."""
    vocabulary = READ_ONLY_LABELS if sub.mode == "read-only" else WRITABLE_LABELS
    lines = "\n".join(f"- {name}: {meaning}" for name, meaning in vocabulary.items())
    tools = ", ".join(sub.tools) or "(none)"
    return (
        "Give the function label of this sub-agent: answer with exactly one label from the list.\n"
        f"Labels ({sub.mode}):\n{lines}\n\n"
        f"Sub-agent type: {sub.type}\nDescription: {sub.description}\n"
        f"Prompt: {sub.prompt or ''}\nTools called: {tools}\nLabel:"
    )


def parse_label(text: str) -> str | None:
    """The label an answer names: the whole answer, else the longest label it mentions."""
    answer = text.strip().strip("`'\".").lower()
    if answer in LABELS:
        return answer
    found = [label for label in LABELS if label in answer]
    return max(found, key=len) if found else None


def _agreements(first: Sequence[str | None], second: Sequence[str | None]) -> int:
    """Positions where both name the same label; no label agrees with nothing."""
    return sum(a is not None and a == b for a, b in zip(first, second, strict=True))


def cohen_kappa(first: Sequence[str | None], second: Sequence[str | None]) -> float | None:
    """Cohen's kappa of two label sequences; None when empty or chance agreement is total.

    No label (None) is each tagger's own category, shared with neither tagger's other answers:
    it counts neither in observed nor in chance agreement, so kappa stays within [−1, 1]."""
    n = len(first)
    if n == 0 or n != len(second):
        return None
    observed = _agreements(first, second) / n
    counts_a, counts_b = Counter(first), Counter(second)
    expected = sum(counts_a[k] * counts_b[k] for k in counts_a if k is not None) / (n * n)
    if expected == 1.0:
        return None
    return (observed - expected) / (1.0 - expected)


def agreement(first: Sequence[str | None], second: Sequence[str | None]) -> Agreement:
    """Share of equal labels (no label is never equal) and Cohen's kappa."""
    n = len(first)
    share = _agreements(first, second) / n if n else None
    return Agreement(n, share, cohen_kappa(first, second))


async def llm_tag(
    records: Sequence[EpisodeRecord],
    complete: Complete,
    tool_labels: Mapping[str, str] | None = None,
    concurrency: int = DEFAULT_CONCURRENCY,
    every: bool = False,
) -> LLMTagging:
    """Tag every unlabelled sub-agent with the LLM and compare with the deterministic tagger.

    With `every`, labelled sub-agents are asked too, so the agreement covers runs whose records
    all carry the harness's label (mseval's own); scoring still prefers a record's label.
    """
    todo = [(episode_key(r), s) for r in records for s in r.subagents if every or not s.label]
    gate = asyncio.Semaphore(concurrency)

    async def ask(sub: SubagentRecord) -> str | None:
        async with gate:
            return parse_label(await complete(tagging_prompt(sub)))

    async with asyncio.TaskGroup() as group:
        tasks = [group.create_task(ask(sub)) for _, sub in todo]
    llm = [task.result() for task in tasks]
    deterministic = [tag_subagent(sub, tool_labels).label for _, sub in todo]
    labels = {(key, sub.id): label for (key, sub), label in zip(todo, llm, strict=True)}
    return LLMTagging(labels, agreement(llm, deterministic))
