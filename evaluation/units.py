"""Function units and the order-preserving wave alignment that counts hits (SPEC §9).

A unit is one sub-task handled within one wave. In a run, sub-agents of one wave with the same
label and the same sub-task collapse into one unit: the same sub-task means a near-identical
sub-task text (equal after normalisation, and not empty) or a resume of the same agent. Units
never span waves. In a prior, each listed sub-agent is a unit.

Hits of an episode = max over order-preserving alignments of gold waves to run waves of
Σ |gold wave ∩ run wave| (multiset overlap of labels): a dynamic program like LCS.
"""

from __future__ import annotations

import re
import unicodedata
from collections import _count_elements  # type: ignore[attr-defined]  # Counter's own counting loop
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

from contracts import DelegationPrior, EpisodeRecord, SubagentRecord
from evaluation.tagging import tag_subagent

Labeler = Callable[[EpisodeRecord, SubagentRecord], str | None]
"""Gives a sub-agent's function label (None when nothing decides one)."""

# Punctuation, but for "+" and "#" right after a word ("C++", "C#", "F#" name different things
# from "C" and "F"); group 1 is what such a match keeps.
_PUNCT = re.compile(r"(\w[+#]+)|[^\w\s]")
# An article precedes a word; a trailing "a" ("course A", "course A.") names a course instead.
_ARTICLES = re.compile(r"\b(?:a|an|the)\b(?=\s+\w)")
_SPACES = re.compile(r"\s+")


@dataclass(frozen=True)
class Unit:
    """A function unit: one sub-task of one wave."""

    label: str | None
    members: tuple[str, ...]
    """Ids of the sub-agents that collapsed into this unit."""


def deterministic_labeler(tool_labels: Mapping[str, str] | None = None) -> Labeler:
    """The default labeler: the record's label, else tools, else sub-task text."""

    def label(_record: EpisodeRecord, sub: SubagentRecord) -> str | None:
        return tag_subagent(sub, tool_labels).label

    return label


@lru_cache(maxsize=65536)  # sub-tasks repeat across seeds and settings; the text work is the cost
def normalize_subtask(text: str) -> str:
    """Case, punctuation ("+" and "#" after a word kept), articles and spacing removed: what
    'near-identical' ignores.

    Deliberately narrow: "read roster of course A" and "... course B" stay different, since
    sibling sub-tasks often differ in one token only.
    """
    # Lower case first, so articles are found whatever their case ("THE roster").
    text = unicodedata.normalize("NFKC", text).lower()
    text = _ARTICLES.sub(" ", text)
    text = _PUNCT.sub(lambda m: m.group(1) or " ", text)
    return _SPACES.sub(" ", text).strip()


def subtask_signature(sub: SubagentRecord) -> str | None:
    """Normalised description and prompt: an AgentSwarm shares one description across its
    items, so the prompt (the template filled with the item) must take part. None when both
    are empty: a trace without sub-task text says nothing about which sub-task was done."""
    description, prompt = normalize_subtask(sub.description), normalize_subtask(sub.prompt or "")
    if not description and not prompt:
        return None
    return f"{description}\x00{prompt}"


def resume_roots(record: EpisodeRecord) -> dict[str, str]:
    """Each sub-agent id → the id of the first run of that agent (following `resume_of`)."""
    roots: dict[str, str] = {}
    for sub in record.subagents:
        if sub.resume_of is not None:
            roots[sub.id] = roots.get(sub.resume_of, sub.resume_of)
        else:
            roots.setdefault(sub.id, sub.id)
    return roots


def run_units(record: EpisodeRecord, labeler: Labeler) -> list[list[Unit]]:
    """The units of each non-empty wave of a run, in wave order."""
    roots = resume_roots(record)
    return [
        wave_units(wave.subagents, [labeler(record, s) for s in wave.subagents], roots)
        for wave in sorted(record.waves, key=lambda w: w.index)
        if wave.subagents
    ]


def wave_units(
    subs: Sequence[SubagentRecord], labels: Sequence[str | None], roots: Mapping[str, str]
) -> list[Unit]:
    """Collapse one wave's sub-agents with the same label and the same sub-task into units."""
    if len(set(labels)) == len(labels):  # nothing can collapse: skip the text work
        return [Unit(label, (sub.id,)) for sub, label in zip(subs, labels, strict=True)]
    parent = list(range(len(subs)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    # Union-find, so collapsing is transitive (a ~ b by resume, b ~ c by sub-task text).
    first: dict[tuple[str | None, str, str], int] = {}
    for i, sub in enumerate(subs):
        keys = [(labels[i], "root", roots.get(sub.id, sub.id))]
        if (signature := subtask_signature(sub)) is not None:  # no text: its own sub-task
            keys.append((labels[i], "text", signature))
        for key in keys:
            if key in first:
                parent[find(i)] = find(first[key])
            else:
                first[key] = i
    groups: dict[int, list[int]] = {}
    for i in range(len(subs)):
        groups.setdefault(find(i), []).append(i)
    return [Unit(labels[m[0]], tuple(subs[i].id for i in m)) for m in groups.values()]


def prior_label_waves(prior: DelegationPrior) -> list[list[str]]:
    """The gold waves of a prior as label lists (each listed sub-agent is a unit)."""
    return prior.label_waves


def multiset_overlap(gold: Sequence[str], run: Sequence[str | None]) -> int:
    """Σ over labels of min(count in gold, count in run); unlabelled units never match."""
    left: dict[str, int] = {}  # gold's counts, each run label taking one while any is left
    _count_elements(left, gold)
    common = 0
    for label in run:
        if label is not None and left.get(label, 0) > 0:
            left[label] -= 1
            common += 1
    return common


def wave_alignment_hits(gold: Sequence[Sequence[str]], run: Sequence[Sequence[str | None]]) -> int:
    """Max Σ overlap over order-preserving one-to-one alignments of gold waves to run waves."""
    if not gold or not run:
        return 0
    previous = [0] * (len(run) + 1)
    for g in gold:
        current = [0] * (len(run) + 1)
        for j, r in enumerate(run, start=1):
            current[j] = max(previous[j], current[j - 1], previous[j - 1] + multiset_overlap(g, r))
        previous = current
    return previous[-1]


def unit_labels(waves: Sequence[Sequence[Unit]]) -> list[list[str | None]]:
    """Unit waves as label lists."""
    return [[u.label for u in wave] for wave in waves]
