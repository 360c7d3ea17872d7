"""The run identity (SPEC §8): what a run's results depend on, hashed and recorded with it.

Like Inspect's task identity, it leaves out transport settings (server transport, concurrency,
executor), which change how a run executes but not what it measures.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from harness import __version__
from harness.catalog import PRIORS_DIR, PROJECT_ROOT, Task, catalog_hash
from harness.profiles import Profile


def git_revision(root: Path = PROJECT_ROOT) -> tuple[str | None, bool | None]:
    try:
        rev = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, timeout=5, check=True
        )
        dirty = subprocess.run(
            ["git", "status", "--porcelain"], cwd=root, capture_output=True, text=True, timeout=5, check=True
        )
    except (OSError, subprocess.SubprocessError):
        return None, None
    return rev.stdout.strip(), bool(dirty.stdout.strip())


def files_hash(paths: Iterable[Path]) -> str:
    """sha256 over the sorted files' names and contents (the same rule evaluation uses for priors)."""
    h = hashlib.sha256()
    for p in sorted(paths, key=lambda p: p.name):
        h.update(p.name.encode())
        h.update(b"\0")
        h.update(p.read_bytes())
        h.update(b"\0")
    return h.hexdigest()


def priors_hash(tasks: Iterable[Task], priors_dir: Path = PRIORS_DIR) -> str:
    return files_hash(priors_dir / f"{t.id}.yaml" for t in tasks if (priors_dir / f"{t.id}.yaml").exists())


def profiles_hash(profiles: Iterable[Profile]) -> str:
    prompts = Path(__file__).with_name("prompts.py")
    h = hashlib.sha256(files_hash([p.source for p in profiles]).encode())
    h.update(prompts.read_bytes())
    return h.hexdigest()


def run_identity(
    *, tasks: list[Task], profiles: list[Profile], models: list[str], variants: list[str], matrix: list[str], seeds: int,
    settings: dict[str, Any], budgets: dict[str, Any], price_version: str | None, base_url: str | None = None,
    server_options: dict[str, Any] | None = None,
) -> dict[str, Any]:  # fmt: skip
    """What the run's results depend on. `base_url` (the server an OpenAI-compatible model or a
    proxy answers from) is recorded only when given, without credentials or query, so runs of one
    model name on two servers are told apart while runs without one keep their identity.
    `server_options` (sandbox, caps, timeouts: what a tool can do) likewise, only when given."""
    rev, dirty = git_revision()
    endpoint = {"base_url": endpoint_of(base_url)} if base_url else {}
    return {
        "mseval": __version__,
        "git": rev,
        "git_dirty": dirty,
        "tasks_hash": catalog_hash(tasks),
        "tasks": sorted(t.id for t in tasks),
        "priors_hash": priors_hash(tasks),
        "profiles_hash": profiles_hash(profiles),
        "models": models,
        "variants": variants,
        "matrix": matrix,
        "seeds": seeds,
        "sampling": settings,
        "budgets": budgets,
        "price_version": price_version,
        "simulated": all(m.startswith("sim:") for m in models),
        **endpoint,
        **({"server_options": server_options} if server_options else {}),
    }


def endpoint_of(url: str) -> str:
    """A base URL without user, password or query (where keys may hide)."""
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(url)
    host = parts.hostname or ""
    netloc = f"[{host}]" if ":" in host else host
    try:
        port = parts.port
    except ValueError:  # not a port number: the host alone
        port = None
    return urlunsplit((parts.scheme, netloc if port is None else f"{netloc}:{port}", parts.path, "", ""))


def matrix_key(identity: dict[str, Any]) -> str:
    """What `--resume` matches runs by: the identity but for the git revision, the order the
    models, variants and settings were given in not counting (`-v sa -v spec` is `-v spec -v sa`)."""
    keep = {k: v for k, v in identity.items() if k not in ("git", "git_dirty")}
    for name in ("models", "variants", "matrix"):
        if isinstance(keep.get(name), list):
            keep[name] = sorted(keep[name])
    return hashlib.sha256(json.dumps(keep, sort_keys=True, default=str).encode()).hexdigest()[:16]
