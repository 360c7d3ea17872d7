"""Planned episodes without a record, and the runs a score covers (SPEC §9: absent episodes).

A run identity names what it planned: its `matrix` × `tasks` × `seeds`. Every planned episode
without a record counts absent (a failure, lower coverage), whether its run recorded some
episodes (stopped part way) or none (stopped before its first episode finished, or its lines
left out of an export): a run without a record is no reason to drop what it planned.
A store keeps superseded runs too; those plan nothing that is missing, so they stay out of the
identity and its warnings.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from contracts import EpisodeRecord
from evaluation.records import deduplicate, unfinished


def runs_of(records: Sequence[EpisodeRecord], runs: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The runs the records come from: a store keeps superseded runs too, which must not
    trigger identity warnings for a table they have no episode in."""
    used = {r.run_id for r in records if r.run_id is not None}
    if not used or not any("run_id" in run for run in runs):
        return list(runs)
    return [run for run in runs if run.get("run_id") in used]


def planned_without_record(
    records: Sequence[EpisodeRecord], runs: Sequence[Mapping[str, Any]]
) -> list[EpisodeRecord]:
    """An absent record for each planned episode without a record, from every run listed.

    The runs the records come from are asked first, so an episode that an older run planned
    too is laid to the run that recorded the others, not to the older one. A run without a
    `run_id` beside runs with one is not asked: nothing could name it as the episode's run."""
    used = runs_of(records, runs)
    missing = unfinished(records, used)
    asked = {id(run) for run in used}
    others = [run for run in runs if "run_id" in run and id(run) not in asked]
    return missing + unfinished([*records, *missing], others)


def scored_records(
    records: Sequence[EpisodeRecord], runs: Sequence[Mapping[str, Any]]
) -> list[EpisodeRecord]:
    """The episodes a score counts, as `score_records` takes them: the first record of each
    (model, variant, task, seed), then an absent one for each planned episode without a record.
    The report's table of absent episodes lists these: from the records as read, it named a
    repeated absent record twice and no planned episode without a record, while the totals
    above it counted each once."""
    kept = deduplicate(records).records
    return [*kept, *planned_without_record(kept, runs)]


def not_run_warning(not_run: Sequence[EpisodeRecord]) -> str:
    """One warning for the planned episodes without a record, counted absent."""
    per_setting = sorted(Counter((r.model, r.variant) for r in not_run).items())
    where = ", ".join(f"{m}/{v} {n}" for (m, v), n in per_setting)
    return (
        f"{len(not_run)} planned episode(s) have no record ({where}): their run stopped (or is "
        "still running) before they finished, or they were left out of the export; counted absent "
        "(failures, lower coverage). "
        "`mseval run --resume` with the same settings runs them"
    )
