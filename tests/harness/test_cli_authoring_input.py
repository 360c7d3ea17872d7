"""Authoring commands never overwrite work by surprise and take exactly what they say."""

from __future__ import annotations

from pathlib import Path

from harness.store import Store
from tests.harness.cli_support import catalog_copy, mseval, one_line_error


def _draft(env: dict[str, str], store: str, *args: str) -> str:
    return one_line_error(mseval("priors", "draft", *args, "--from-episode", "e1", "--store", store, env=env))


def test_priors_draft_takes_exactly_one_task_id(tmp_path: Path) -> None:
    *_, env = catalog_copy(tmp_path, "lms-due-reminder", "lms-enrollment-overview")
    store = f"sqlite:///{tmp_path / 's.db'}"
    Store(store).close()
    for selector in ("lms-*", "lms", "all"):
        assert (
            _draft(env, store, selector)
            == f"{selector}: give exactly one task id (not a scenario, a glob or 'all')"
        )


def test_priors_draft_does_not_overwrite_without_force(tmp_path: Path) -> None:
    _tasks, priors, env = catalog_copy(tmp_path)
    store = f"sqlite:///{tmp_path / 's.db'}"
    Store(store).close()
    prior = priors / "lms-due-reminder.yaml"
    before = prior.read_text()
    assert _draft(env, store, "lms-due-reminder") == f"{prior}: a prior exists; pass --force to replace it"
    out = tmp_path / "mine.yaml"
    out.write_text("keep me\n")
    assert (
        _draft(env, store, "lms-due-reminder", "--out", str(out))
        == f"{out}: exists already; pass --force to replace it"
    )
    assert prior.read_text() == before and out.read_text() == "keep me\n"
    # with --force it goes on (and stops at the episode, which this store does not have)
    line = _draft(env, store, "lms-due-reminder", "--force")
    assert line.startswith("--from-episode: no finished episode 'e1'")


def test_profiles_new_with_a_built_in_name_needs_override(tmp_path: Path) -> None:
    line = one_line_error(mseval("profiles", "new", "explorer", "--dir", str(tmp_path)))
    assert line == "explorer: a built-in profile has this name; pass --override to replace it"
    assert not (tmp_path / "explorer.md").exists()
    made = mseval("profiles", "new", "explorer", "--override", "--dir", str(tmp_path))
    assert made.returncode == 0, made.stderr
    assert "override: true" in (tmp_path / "explorer.md").read_text()
    checked = mseval("profiles", "validate", "--dir", str(tmp_path))
    assert checked.returncode == 0, checked.stderr


def test_a_profile_name_too_long_for_a_file_is_refused(tmp_path: Path) -> None:
    """A name over 255 bytes: looking up NAME.md raised "File name too long" (a traceback). As
    for a task id (`tasks new`), at most 100 characters."""
    name = "x" * 300
    line = one_line_error(mseval("profiles", "new", name, "--dir", str(tmp_path / "profiles")))
    assert line == f"{name}: a profile name is at most 100 characters"
    assert list(tmp_path.iterdir()) == []


def test_an_empty_name_is_named_as_empty(tmp_path: Path) -> None:
    """`tasks new ''` printed ': a task id is …', a line that named nothing."""
    *_, env = catalog_copy(tmp_path)
    line = one_line_error(mseval("tasks", "new", "", "--scenario", "lms", env=env))
    assert line == "'': a task id is lower-case letters, digits and dashes"
    line = one_line_error(mseval("profiles", "new", "", "--dir", str(tmp_path / "profiles")))
    assert line == "'': a profile name is lower-case letters, digits and dashes"
    assert not (tmp_path / "profiles").exists()
