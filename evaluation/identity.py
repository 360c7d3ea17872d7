"""Run identity, scorer version and the aggregation contract of a score (SPEC §8, §9).

Runs of different identity on tasks, priors, scorer or contract are never put in one table
without a printed warning. The priors hash is computed here from the priors that score the
runs: sha256 over the prior files sorted by name, each contributing its name, a NUL byte, its
bytes and a NUL byte — so a renamed or edited prior changes it. The runtime hashes the priors
of a run's tasks by the same rule, so a run that lists its `tasks` is checked against the
hash of exactly those priors here.

Every episode record carries its model and price version, so a score of records without
their run identities (an export without its `.runs.json`, a foreign trace) still states them.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from contracts import EpisodeRecord
from evaluation.records import prior_files

# Bumped whenever the same records could score differently. 0.2.0: case-first unit normaliser,
# LLM-label fallback, token-less IDS nodes and CJK unigrams, foreign-trace verdicts, UPR main
# turns without tools_ok, answer extraction (emphasis, thousands separators). 0.3.0: planned
# episodes without a record count absent; \boxed{} answers keep their inner braces; the bootstrap
# draws tasks in id order. 0.3.1: the TF-IDF cosine is summed exactly, so IDS no longer moves in
# its last digit with the process's string hashing. 0.3.2: a resumed sub-agent's temporal edge
# comes from its agent's latest run, whichever earlier run id `resume_of` names; float means
# are summed exactly (math.fsum), so the same records in any order score the same to the last digit.
# 0.3.3: a record without turns (or with a wave whose main_step names no turn) keeps its
# sub-agents in the agent graph, under one main node, instead of being that one node alone.
# 0.3.4: sub-agents with no sub-task text are units of their own; "+"/"#" after a word stay in
# sub-task matching; an LLM tagger's "no label" agrees with nothing; a planned run with no
# record counts its episodes absent.
SCORER_VERSION = "0.3.4"

# Which run-identity keys name each of the four things that must agree within one table;
# the runtime's key spelling is accepted under any of these names.
IDENTITY_GROUPS: dict[str, tuple[str, ...]] = {
    "tasks": ("tasks_hash",),
    "priors": ("priors_hash",),
    "scorer": ("scorer", "scorer_version"),
    "contract": ("contract", "aggregation_contract"),
}
# What the runtime ran under, also compared: a row beside a baseline that ran under other
# budgets or sampling compares more than the variant.
SETTINGS_GROUPS = ("budgets", "sampling")
_ALIASES: dict[str, tuple[str, ...]] = {
    "mseval": ("mseval", "mseval_version", "version"),
    "git": ("git", "git_rev", "git_revision"),
    "git_dirty": ("git_dirty",),
    "tasks_hash": ("tasks_hash",),
    "profiles_hash": ("profiles_hash",),
    "price_version": ("price_version", "prices_version"),
}


PriorSources = Mapping[str, bytes]
"""Prior file name → its bytes."""


def read_prior_sources(folder: Path) -> dict[str, bytes]:
    """The prior files of `folder` by name (empty when the folder does not exist)."""
    return {path.name: path.read_bytes() for path in prior_files(folder)} if folder.is_dir() else {}


def hash_prior_sources(sources: PriorSources, tasks: Iterable[str] | None = None) -> str:
    """sha256 over the files sorted by name (only those of `tasks` when given)."""
    names = sorted(sources) if tasks is None else sorted(n for t in tasks if (n := f"{t}.yaml") in sources)
    digest = hashlib.sha256()
    for name in names:
        digest.update(name.encode() + b"\0" + sources[name] + b"\0")
    return digest.hexdigest()


def priors_hash(folder: Path) -> str | None:
    """sha256 of the prior files of `folder` (None when the folder does not exist)."""
    return hash_prior_sources(read_prior_sources(folder)) if folder.is_dir() else None


def _canonical(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True, default=str)


def _lookup(run: Mapping[str, Any], names: Iterable[str]) -> Any:
    for name in names:
        if name in run and run[name] is not None:
            return run[name]
    return None


def distinct(runs: Sequence[Mapping[str, Any]], names: Iterable[str]) -> list[Any]:
    """The distinct values the runs give under any of `names` (runs without it skipped)."""
    names = tuple(names)
    seen: dict[str, Any] = {}
    for run in runs:
        value = _lookup(run, names)
        if value is not None:
            seen.setdefault(_canonical(value), value)
    return [seen[key] for key in sorted(seen)]


def _differences(settings: Sequence[Mapping[str, Any]]) -> str:
    """The keys whose values differ between the runs' settings, each with its values."""
    parts = []
    for key in sorted({k for one in settings for k in one}):
        values = sorted({"unset" if one.get(key) is None else _short(one[key]) for one in settings})
        if len(values) > 1:
            parts.append(f"{key} {', '.join(values)}")
    return "; ".join(parts)


def _short(value: Any) -> str:
    text = _canonical(value)
    return text[:12] + "…" if len(text) > 14 else text


def price_versions(runs: Sequence[Mapping[str, Any]], records: Sequence[EpisodeRecord] = ()) -> list[str]:
    """The distinct price-table versions the runs and the records name."""
    named = {str(v) for v in distinct(runs, _ALIASES["price_version"])}
    return sorted(named | {r.price_version for r in records if r.price_version is not None})


def identity_warnings(
    runs: Sequence[Mapping[str, Any]], sources: PriorSources | None, records: Sequence[EpisodeRecord] = ()
) -> list[str]:
    """Warnings for runs of different identity in one table, for costs priced from different
    price tables, and for priors that changed between a run and its scoring (`sources` None:
    the scoring priors are unknown)."""
    warnings = []
    if len(prices := price_versions(runs, records)) > 1:
        warnings.append(
            f"costs priced from different price tables are compared: price versions {', '.join(prices)}"
        )
    selections = {tuple(run["tasks"]) for run in runs if isinstance(run.get("tasks"), list)}
    for what, names in IDENTITY_GROUPS.items():
        values = distinct(runs, names)
        if what in ("tasks", "priors") and len(selections) > 1:
            continue  # hashes over different selections differ of course: said once, below
        if len(values) > 1:
            listed = ", ".join(_short(v) for v in values)
            warnings.append(f"runs of different identity in one table: their {what} differ ({listed})")
    for what in SETTINGS_GROUPS:  # what the runtime ran under: outcomes depend on it too
        settings = [v for v in distinct(runs, (what,)) if isinstance(v, Mapping)]
        if len(settings) > 1:
            warnings.append(f"runs with other {what} in one table: {_differences(settings)}")
    if len(selections) > 1:
        sizes = " and ".join(str(n) for n in sorted({len(t) for t in selections}))
        warnings.append(
            f"runs of different task selections in one table ({len(selections)} selections of {sizes} "
            "tasks): a setting's row covers the tasks its runs selected"
        )
    for run in runs if sources is not None else ():
        recorded = _lookup(run, IDENTITY_GROUPS["priors"])
        tasks = run.get("tasks") if isinstance(run.get("tasks"), list) else None
        current = hash_prior_sources(sources or {}, tasks)
        if recorded is not None and recorded != current:
            name = run.get("run_id", "a run")
            warnings.append(
                f"run {name} was made with priors {_short(recorded)} but the priors scoring it hash to {_short(current)}"
            )
    return warnings


def identity_block(
    runs: Sequence[Mapping[str, Any]], sources: PriorSources | None, records: Sequence[EpisodeRecord] = ()
) -> dict[str, Any]:
    """The `identity` object of a score: one value where the runs agree, a list where not. The
    price version and the models the runs do not name are taken from the records."""
    block: dict[str, Any] = {}
    for key, names in _ALIASES.items():
        values = distinct(runs, names)
        block[key] = _one_or_list(values)
    if block["price_version"] is None:
        block["price_version"] = _one_or_list(price_versions((), records))
    block["priors_hash"] = hash_prior_sources(sources) if sources is not None else None
    block["scorer"] = SCORER_VERSION
    models = sorted({str(m) for run in runs for m in _as_list(run.get("models", run.get("model")))})
    block["models"] = models or sorted({r.model for r in records})
    block["runs"] = [dict(run) for run in runs]
    return block


def _one_or_list(values: list[Any]) -> Any:
    return values[0] if len(values) == 1 else (values or None)


def _as_list(value: Any) -> list[Any]:
    if value is None:
        return []
    return list(value) if isinstance(value, (list, tuple)) else [value]
