"""Authoring commands never overwrite work by surprise and take exactly what they say."""

from __future__ import annotations

import subprocess
from pathlib import Path

from harness.profiles import BUILTIN_DIR
from harness.store import Store
from tests.harness.cli_support import catalog_copy, line_of, mseval, one_line_error


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


def test_profiles_new_override_needs_a_built_in_profile_to_replace(tmp_path: Path) -> None:
    """`--override` with a new name wrote `override: true`, exit 0, into a file that `profiles
    validate` then refused (no built-in profile to replace)."""
    line = one_line_error(mseval("profiles", "new", "brand-new", "--override", "--dir", str(tmp_path)))
    assert line == "brand-new: no built-in profile has this name to replace; leave out --override"
    assert list(tmp_path.iterdir()) == []


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


def _gen_copy(folder: Path, name: str, *extra: str, subagents: str = "[planner, explorer, coder]") -> Path:
    """A copy of the built-in variant `gen` as `name`, with its sub-agents and `extra` front-matter lines."""
    text = (BUILTIN_DIR / "gen.md").read_text().replace("name: gen\n", f"name: {name}\n", 1)
    text = text.replace(
        "subagents: [planner, explorer, coder]\n", "\n".join([f"subagents: {subagents}", *extra]) + "\n"
    )
    folder.mkdir(exist_ok=True)
    (path := folder / f"{name}.md").write_text(text)
    return path


def _problems(result: subprocess.CompletedProcess[str]) -> list[str]:
    assert result.returncode == 2 and "Traceback" not in result.stderr, (result.returncode, result.stderr)
    return result.stderr.strip().splitlines()


def test_profiles_validate_tells_an_unknown_sub_agent_with_an_invalid_field(tmp_path: Path) -> None:
    """With `maxSteps: 0` in the front matter the file was not read further: the unknown
    sub-agent 'wizard' (and a glob matching no tool) were told only once maxSteps was fixed."""
    path = _gen_copy(tmp_path / "p", "myvar", "maxSteps: 0", subagents="[planner, wizard]")
    text = path.read_text().replace('tools: ["mcp__*"]', 'tools: ["mcp__*", "mcp__nosuch__*"]')
    path.write_text(text)
    assert _problems(mseval("profiles", "validate", "--dir", str(path.parent))) == [
        f"{path}:{line_of(path, 'tools:')}: tools glob 'mcp__nosuch__*' matches no known tool",
        f"{path}:{line_of(path, 'subagents:')}: unknown sub-agent 'wizard'",
        f"{path}:{line_of(path, 'maxSteps:')}: maxSteps: Input should be greater than or equal to 1",
    ]


def test_a_role_with_an_invalid_field_is_not_also_an_unknown_sub_agent(tmp_path: Path) -> None:
    """A variant naming a role of the folder whose front matter has a bad value was told
    'unknown sub-agent' too: the role exists, its own problem is the one to fix."""
    folder = tmp_path / "p"
    variant = _gen_copy(folder, "myvar", subagents="[planner, reader]")
    role = folder / "reader.md"
    role.write_text(
        "---\nname: reader\ndescription: reads\nwhenToUse: to read\nmode: read-only\n"
        'tools: ["mcp__lms__*"]\nmaxSteps: many\n---\nRead.\n'
    )
    assert _problems(mseval("profiles", "validate", "--dir", str(folder))) == [
        f"{role}:7: maxSteps: Input should be a valid integer, unable to parse string as an integer"
    ]
    assert variant.exists()


def test_a_profile_with_an_invalid_delegation_reports_its_other_problems_only(tmp_path: Path) -> None:
    """The checks that need a field that failed are left out (no "'subagents' belongs to a
    variant" for a misspelt delegation); those that need none of them are made."""
    path = _gen_copy(tmp_path / "p", "myvar", subagents="[planner, wizard]")
    path.write_text(
        path.read_text()
        .replace("delegation: autonomous", "delegation: sometimes")
        .replace("name: myvar", "name: other")
    )
    lines = _problems(mseval("profiles", "validate", "--dir", str(path.parent)))
    assert lines[0] == f"{path}:{line_of(path, 'name:')}: name 'other' must match the file name 'myvar'"
    assert (
        lines[1]
        == f"{path}:{line_of(path, 'delegation:')}: delegation: Input should be 'none', 'autonomous', 'plan-first' or 'oracle'"
    )
    assert lines[2] == f"{path}:{line_of(path, 'subagents:')}: unknown sub-agent 'wizard'"
    assert len(lines) == 3


def test_profiles_new_like_takes_a_variant_name_not_a_path(tmp_path: Path) -> None:
    """`--like ../README` read the project's README.md as a profile and told its missing front
    matter; `--like` names one of the built-in variants, as for an unknown name."""
    folder = tmp_path / "p"
    for like in ("../README", "nosuch", "explorer"):
        line = one_line_error(mseval("profiles", "new", "x", "--like", like, "--dir", str(folder)))
        assert (
            line
            == f"--like: {like!r} is not a built-in variant; give one of gen, oracle, plan-first, sa, spec"
        )
    assert not folder.exists()
