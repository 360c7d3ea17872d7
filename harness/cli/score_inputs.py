"""The inputs of `mseval score` and `mseval report`: where episodes and priors come from, and
everything that is checked about them (all problems at once) before any is read."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from contracts.errors import InputError, Problem

if TYPE_CHECKING:
    pass

# The project's priors folder: <repo root>/delegation_priors (this file is harness/cli/score_inputs.py).
DEFAULT_PRIORS = Path(__file__).resolve().parents[2] / "delegation_priors"
# harness.store's default, repeated so that --help needs no store import.
DEFAULT_STORE = "sqlite:///runs/mseval.db"


def priors_folder(given: Path | None) -> Path:
    """`--priors`, else `MSEVAL_PRIORS`, else the project's delegation_priors/ (as `mseval run`)."""
    env = os.environ.get("MSEVAL_PRIORS")
    return given or (Path(env) if env else DEFAULT_PRIORS)


def input_problems(
    store: str | None, episodes: Path | None, priors: Path | None, out: Path | None = None
) -> list[Problem]:
    """What is wrong with the inputs of score/report, all at once, before any is read."""
    from contracts.episode import runs_file_for
    from contracts.paths import folder_problem, lookup_problem
    from harness.cli.common import check_out_path
    from harness.store_urls import url_problems

    problems = []
    folder = priors_folder(priors)
    if said := folder_problem(folder, "delegation priors"):
        source = (
            "--priors" if priors else "MSEVAL_PRIORS" if os.environ.get("MSEVAL_PRIORS") else "the project's"
        )
        problems.append(Problem(str(folder), None, f"{said} ({source})"))
    if store is not None and episodes is not None:
        problems.append(Problem("--episodes", None, "give either --store or --episodes, not both"))
    elif episodes is None:
        problems += url_problems(store or DEFAULT_STORE, "--store", must_exist=True)
    elif reason := lookup_problem(episodes):
        problems.append(Problem(str(episodes), None, f"cannot read: {reason}"))
    elif reason := lookup_problem(runs_file_for(episodes)):  # the run identities read beside it
        problems.append(Problem(str(runs_file_for(episodes)), None, f"cannot read: {reason}"))
    elif episodes.is_dir():
        problems.append(Problem(str(episodes), None, "is a folder; give a .jsonl file (see `mseval export`)"))
    if out is not None:
        try:
            check_out_path(out, "--out", folder=True)
        except InputError as exc:
            problems += exc.problems
    return problems


def check_inputs(
    store: str | None, episodes: Path | None, priors: Path | None, out: Path | None = None,
    tagger: tuple[str | None, str | None, str | None] = (None, None, None),
) -> Path:  # fmt: skip
    problems = input_problems(store, episodes, priors, out)
    model, base_url, api_key_env = tagger
    if model is not None:
        problems += tagger_problems(model, base_url, api_key_env)
    if problems:
        raise InputError(problems)
    return priors_folder(priors)


def tagger_problems(model: str, base_url: str | None, api_key_env: str | None) -> list[Problem]:
    """What `--llm-tagger MODEL` needs: a real provider, its key, a base URL that is a URL."""
    from dataclasses import replace

    from harness.models.config import option_problems
    from harness.models.registry import preflight, split_name

    problems = option_problems(base_url, None, None, None, api_key_env)
    try:
        if split_name(model)[0] == "sim":
            raise InputError.one(
                "--llm-tagger",
                None,
                "the LLM tagger needs a real model (anthropic:…, openai:…, openai-compatible:…)",
            )
        preflight(model, base_url, api_key_env)
    except InputError as exc:  # the model is named by --llm-tagger here, not --model
        problems += [replace(p, file="--llm-tagger") if p.file == "--model" else p for p in exc.problems]
    return list(dict.fromkeys(problems))
