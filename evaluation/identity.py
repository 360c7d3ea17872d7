"""Run identity, scorer version and the aggregation contract of a score (SPEC §8, §9).

Runs of different identity on tasks, priors, scorer or contract are never put in one table
without a printed warning. The priors hash is computed here from the priors that score the
runs: sha256 over the prior files sorted by name, each contributing its name, a NUL byte, its
bytes and a NUL byte — so a renamed or edited prior changes it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from evaluation.records import prior_files

SCORER_VERSION = "0.1.0"

# Which run-identity keys name each of the four things that must agree within one table;
# the runtime's key spelling is accepted under any of these names.
IDENTITY_GROUPS: dict[str, tuple[str, ...]] = {
    "tasks": ("tasks_hash",),
    "priors": ("priors_hash",),
    "scorer": ("scorer", "scorer_version"),
    "contract": ("contract", "aggregation_contract"),
}
_ALIASES: dict[str, tuple[str, ...]] = {
    "mseval": ("mseval", "mseval_version", "version"),
    "git": ("git", "git_rev", "git_revision"),
    "tasks_hash": ("tasks_hash",),
    "profiles_hash": ("profiles_hash",),
    "price_version": ("price_version", "prices_version"),
}


def priors_hash(folder: Path) -> str | None:
    """sha256 of the prior files of `folder` (None when the folder does not exist)."""
    if not folder.is_dir():
        return None
    digest = hashlib.sha256()
    for path in prior_files(folder):
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


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


def _short(value: Any) -> str:
    text = _canonical(value)
    return text[:12] + "…" if len(text) > 14 else text


def identity_warnings(runs: Sequence[Mapping[str, Any]], scoring_priors_hash: str | None) -> list[str]:
    """Warnings for runs of different identity in one table, and for priors that changed."""
    warnings = []
    for what, names in IDENTITY_GROUPS.items():
        values = distinct(runs, names)
        if len(values) > 1:
            listed = ", ".join(_short(v) for v in values)
            warnings.append(f"runs of different identity in one table: their {what} differ ({listed})")
    run_priors = distinct(runs, IDENTITY_GROUPS["priors"])
    if scoring_priors_hash is not None and len(run_priors) == 1 and run_priors[0] != scoring_priors_hash:
        warnings.append(
            f"the runs were made with priors {_short(run_priors[0])} but are scored with priors "
            f"{_short(scoring_priors_hash)}"
        )
    return warnings


def identity_block(runs: Sequence[Mapping[str, Any]], scoring_priors_hash: str | None) -> dict[str, Any]:
    """The `identity` object of a score: one value where the runs agree, a list where not."""
    block: dict[str, Any] = {}
    for key, names in _ALIASES.items():
        values = distinct(runs, names)
        block[key] = values[0] if len(values) == 1 else (values or None)
    block["priors_hash"] = scoring_priors_hash
    block["scorer"] = SCORER_VERSION
    models = sorted({str(m) for run in runs for m in _as_list(run.get("models", run.get("model")))})
    block["models"] = models
    block["runs"] = [dict(run) for run in runs]
    return block


def _as_list(value: Any) -> list[Any]:
    if value is None:
        return []
    return list(value) if isinstance(value, (list, tuple)) else [value]
