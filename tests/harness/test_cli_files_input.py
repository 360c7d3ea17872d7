"""Malformed profile and graph files: one line with file and line, exit 2."""

from __future__ import annotations

import os
from pathlib import Path

from tests.harness.cli_support import mseval, one_line_error

ROLE = """---
name: helper
description: d
whenToUse: w
mode: read-only
tools: ["mcp__lms__*"]
---
body
"""


def test_a_profile_that_is_not_utf8_is_named(tmp_path: Path) -> None:
    (tmp_path / "helper.md").write_bytes(ROLE.replace("body", "caf\xe9").encode("latin-1"))
    line = one_line_error(mseval("profiles", "validate", "--dir", str(tmp_path)))
    assert line == f"{tmp_path / 'helper.md'}:8: not UTF-8 text (byte 0xe9 at column 4)"


def test_a_front_matter_yaml_error_names_the_file_line(tmp_path: Path) -> None:
    (tmp_path / "helper.md").write_text(ROLE.replace('tools: ["mcp__lms__*"]', "tools: [}"))
    line = one_line_error(mseval("profiles", "validate", "--dir", str(tmp_path)))
    assert line.startswith(f"{tmp_path / 'helper.md'}:6: invalid YAML"), line  # `tools: [}` is line 6


def test_a_duplicate_front_matter_key_names_the_file_line(tmp_path: Path) -> None:
    (tmp_path / "helper.md").write_text(ROLE.replace("mode: read-only", "mode: read-only\nmode: writable"))
    line = one_line_error(mseval("profiles", "validate", "--dir", str(tmp_path)))
    assert line == f"{tmp_path / 'helper.md'}:6: duplicate key 'mode'"


def test_a_graph_file_that_is_not_utf8_is_named(tmp_path: Path) -> None:
    graph = tmp_path / "g.json"
    graph.write_bytes(b'{"nodes": [{"prompt": "caf\xe9"}]}')
    assert one_line_error(mseval("gemmas", str(graph), "--embedder", "none")) == (
        f"{graph}:1: not UTF-8 text (byte 0xe9 at column 27)"
    )


def test_a_graph_file_that_is_a_device_or_a_pipe_is_refused_unread(tmp_path: Path) -> None:
    """A graph linked to /dev/zero was refused, and then read to its end (which never came) to
    see whether it held an episode record; a named pipe waited for a writer."""
    device, pipe = tmp_path / "zero.json", tmp_path / "pipe.json"
    device.symlink_to("/dev/zero")
    os.mkfifo(pipe)
    for path, kind in ((device, "a device"), (pipe, "a pipe")):
        result = mseval("gemmas", str(path), "--embedder", "none", timeout=60)
        assert one_line_error(result) == f"{path}: is {kind}, not a file"


def test_a_graph_file_that_is_not_an_object_says_so(tmp_path: Path) -> None:
    graph = tmp_path / "g.json"
    graph.write_text("\n[1, 2]")
    assert one_line_error(mseval("gemmas", str(graph), "--embedder", "none")) == (
        f"{graph}:2: expected a JSON object with nodes, S and T"
    )


def test_a_profile_with_a_byte_order_mark_loads(tmp_path: Path) -> None:
    """A BOM (as some editors write) made the profile "not start with YAML front matter"."""
    (tmp_path / "helper.md").write_bytes(b"\xef\xbb\xbf" + ROLE.encode())
    result = mseval("profiles", "validate", "--dir", str(tmp_path))
    assert result.returncode == 0, result.stderr


def test_a_graph_file_with_a_byte_order_mark_loads(tmp_path: Path) -> None:
    """`gemmas` said `invalid JSON: Unexpected UTF-8 BOM` where profiles and exports read past it."""
    graph = tmp_path / "g.json"
    nodes = '{"nodes": [{"prompt": "p", "response": "r"}], "S": [[0]], "T": [[0]]}'
    graph.write_bytes(b"\xef\xbb\xbf" + nodes.encode())
    result = mseval("gemmas", str(graph), "--embedder", "none", "--json")
    assert result.returncode == 0, result.stderr
    assert '"nodes": 1' in result.stdout


def test_profiles_validate_reports_every_problem_at_once(tmp_path: Path) -> None:
    """A profile with one problem of its values was dropped at it, so its unknown sub-agent and
    its globs that match no tool surfaced only after the first fix (SPEC §12: all at once)."""
    (tmp_path / "myvar.md").write_text(
        "---\nname: myvar\ndescription: a variant\nwhenToUse: never\nmode: writable\n"
        "delegation: plan-first\nsubagents: [explorer, ghost]\ntools: ['mcp__nothing__*']\n---\nPrinciples.\n"
    )
    (tmp_path / "role-x.md").write_text(
        "---\nname: role-y\ndescription: r\nmode: read-only\ntools: ['mcp__lms__*', 'mcp__nope__*']\n---\nbody\n"
    )
    variant, role = tmp_path / "myvar.md", tmp_path / "role-x.md"
    expected = [
        f"{variant}:7: plan-first needs the 'planner' sub-agent",
        f"{variant}:7: unknown sub-agent 'ghost'",
        f"{variant}:8: tools glob 'mcp__nothing__*' matches no known tool",
        f"{role}:2: name 'role-y' must match the file name 'role-x'",
        f"{role}:2: missing field 'whenToUse' (a sub-agent role says when to use it)",
        f"{role}:5: tools glob 'mcp__nope__*' matches no known tool",
    ]
    store = ("--store", f"sqlite:///{tmp_path / 's.db'}", "--runs-dir", str(tmp_path / "runs"))
    for args in (
        ("profiles", "validate", "--dir", str(tmp_path)),
        ("run", "-m", "sim:oracle", "-v", "myvar", "--profiles", str(tmp_path), *store),
    ):
        result = mseval(*args)
        assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr
        assert result.stderr.strip().splitlines() == expected, args[0]
    assert not (tmp_path / "s.db").exists()


def test_a_role_given_as_a_variant_says_what_a_variant_needs(tmp_path: Path) -> None:
    """`-v helper` with helper a role said only "unknown variant 'helper'", though the file was there."""
    (tmp_path / "helper.md").write_text(ROLE)
    store = ("--store", f"sqlite:///{tmp_path / 's.db'}", "--runs-dir", str(tmp_path / "runs"))
    line = one_line_error(
        mseval("run", "-m", "sim:oracle", "-v", "helper", "--profiles", str(tmp_path), *store)
    )
    assert line == (
        f"--variant: 'helper' is a sub-agent role ({tmp_path / 'helper.md'}), not a variant: a variant's "
        "front matter has 'delegation' and 'subagents' (docs/authoring-profiles.md, Variants)"
    )


def test_an_override_with_nothing_to_replace_is_a_problem(tmp_path: Path) -> None:
    """A copied variant renamed but still saying `override: true` validated silently."""
    (tmp_path / "helper.md").write_text(ROLE.replace("mode:", "override: true\nmode:"))
    line = one_line_error(mseval("profiles", "validate", "--dir", str(tmp_path)))
    assert line == (
        f"{tmp_path / 'helper.md'}:5: override: true, but there is no built-in profile 'helper' to replace; remove it"
    )


def test_a_profile_with_a_bad_field_is_still_checked_against_the_built_ins(tmp_path: Path) -> None:
    """A bad value (`maxSteps: 0`) hid every check against the built-in profiles in the same file:
    a built-in name without `override: true`, an override with nothing to replace, and an override
    of the other kind were not told, though every problem of every file is to be told at once."""
    bad = ROLE.replace("mode: read-only", "mode: read-only\nmaxSteps: 0")
    (tmp_path / "explorer.md").write_text(bad.replace("name: helper", "name: explorer"))
    (tmp_path / "helper.md").write_text(bad.replace("mode:", "override: true\nmode:"))
    (tmp_path / "sa.md").write_text(
        bad.replace("name: helper", "name: sa").replace("mode:", "override: true\nmode:")
    )
    result = mseval("profiles", "validate", "--dir", str(tmp_path))
    steps = "maxSteps: Input should be greater than or equal to 1"
    assert result.returncode == 2 and result.stderr.strip().splitlines() == [
        f"{tmp_path / 'explorer.md'}:2: profile 'explorer' exists; set 'override: true' to replace it",
        f"{tmp_path / 'explorer.md'}:6: {steps}",
        f"{tmp_path / 'helper.md'}:5: override: true, but there is no built-in profile 'helper' to replace; remove it",
        f"{tmp_path / 'helper.md'}:7: {steps}",
        f"{tmp_path / 'sa.md'}:5: 'sa' overrides a variant with a role; an override keeps the kind (add 'delegation')",
        f"{tmp_path / 'sa.md'}:7: {steps}",
    ]


def test_a_folder_given_twice_is_read_once(tmp_path: Path) -> None:
    """`--dir D --dir D` (or D/, or the built-in folder) read D again and told each of its
    profiles "profile 'helper' exists; set 'override: true' to replace it", which was wrong."""
    (tmp_path / "helper.md").write_text(ROLE)
    builtin = Path(__file__).resolve().parents[2] / "subagent_profiles"
    again = (str(tmp_path), f"{tmp_path}/", str(tmp_path / ".." / tmp_path.name), str(builtin))
    result = mseval("profiles", "validate", *(a for d in again for a in ("--dir", d)))
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("15 profiles valid"), result.stdout
    store = tmp_path / "s.db"
    result = mseval("run", "-m", "sim:oracle", "-v", "sa", "--tasks", "lms-due-reminder",
                    "--profiles", str(tmp_path), "--profiles", str(tmp_path),
                    "--store", f"sqlite:///{store}", "--runs-dir", str(tmp_path / "runs"))  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "1 episode run" in result.stdout


def test_a_variant_that_lists_a_sub_agent_twice_is_refused_at_the_duplicate(tmp_path: Path) -> None:
    """`subagents: [explorer, explorer]` was taken, and the variant offered one role twice."""
    variant = tmp_path / "twice.md"
    variant.write_text(
        "---\nname: twice\ndescription: a variant\nmode: writable\ndelegation: autonomous\n"
        "subagents:\n  - explorer\n  - planner\n  - explorer\ntools: ['mcp__lms__*']\n---\nPrinciples.\n"
    )
    store = tmp_path / "s.db"
    for args in (
        ("profiles", "validate", "--dir", str(tmp_path)),
        (
            "run",
            "-m",
            "sim:oracle",
            "-v",
            "twice",
            "--profiles",
            str(tmp_path),
            "--store",
            f"sqlite:///{store}",
        ),
    ):
        assert one_line_error(mseval(*args)) == (
            f"{variant}:9: sub-agent 'explorer' is listed twice in 'subagents'; list it once"
        ), args[0]
    assert sorted(tmp_path.iterdir()) == [variant]


def test_a_profile_with_windows_line_ends_loads(tmp_path: Path) -> None:
    """A profile saved with CRLF line ends was told it did not start with YAML front matter."""
    (tmp_path / "helper.md").write_bytes(ROLE.replace("\n", "\r\n").encode())
    result = mseval("profiles", "validate", "--dir", str(tmp_path))
    assert result.returncode == 0, result.stderr
    broken = ROLE.replace("mode: read-only", "mode: rw").replace("\n", "\r\n")
    (tmp_path / "helper.md").write_bytes(broken.encode())
    line = one_line_error(mseval("profiles", "validate", "--dir", str(tmp_path)))
    assert line.startswith(f"{tmp_path / 'helper.md'}:5: mode:"), line


def test_a_path_with_a_newline_stays_on_one_line(tmp_path: Path) -> None:
    """A file name with a newline in it split the problem over two lines."""
    graph = tmp_path / "a\nb.json"
    assert one_line_error(mseval("gemmas", str(graph), "--embedder", "none")) == (
        f"{tmp_path}/a\\nb.json: cannot read: No such file or directory"
    )


def test_an_episodes_file_that_is_not_utf8_names_the_line(tmp_path: Path) -> None:
    """`score --episodes` said `FILE: not UTF-8 text`, no line, where every other file read names it."""
    from tests.evaluation import fixtures

    first, second, *_ = fixtures.records()
    episodes = tmp_path / "e.jsonl"
    text = second.to_json().replace('"task_id":', '"note":"caf\xe9","task_id":', 1)
    episodes.write_bytes((first.to_json() + "\n").encode() + text.encode("latin-1") + b"\n")
    column = text.index("\xe9") + 1
    assert one_line_error(mseval("score", "--episodes", str(episodes), "--embedder", "none")) == (
        f"{episodes}:2: not UTF-8 text (byte 0xe9 at column {column})"
    )


def test_a_date_in_a_profiles_text_field_is_told_to_be_quoted(tmp_path: Path) -> None:
    (tmp_path / "helper.md").write_text(ROLE.replace("description: d", "description: 2026-11-20"))
    line = one_line_error(mseval("profiles", "validate", "--dir", str(tmp_path)))
    assert line == (
        f"{tmp_path / 'helper.md'}:3: description: Input should be a valid string "
        "(YAML reads 2026-11-20 as a date; quote it for text: '2026-11-20')"
    )


def test_a_boolean_or_huge_max_steps_in_a_profile_is_refused_at_its_line(tmp_path: Path) -> None:
    """`maxSteps: true` was read as one step."""
    for given, said in (
        ("true", "give a number, not true"),
        ("100001", "Input should be less than or equal to 100000"),
    ):
        (tmp_path / "helper.md").write_text(
            ROLE.replace("mode: read-only", f"mode: read-only\nmaxSteps: {given}")
        )
        line = one_line_error(mseval("profiles", "validate", "--dir", str(tmp_path)))
        assert line == f"{tmp_path / 'helper.md'}:6: maxSteps: {said}"


def test_override_is_true_or_false_not_a_word(tmp_path: Path) -> None:
    """`override: 'yes'` (a word, as YAML 1.2 reads it) was taken as true."""
    (tmp_path / "explorer.md").write_text(
        ROLE.replace("name: helper", "name: explorer").replace("mode:", "override: 'yes'\nmode:")
    )
    line = one_line_error(mseval("profiles", "validate", "--dir", str(tmp_path)))
    assert line == f"{tmp_path / 'explorer.md'}:5: override: Input should be a valid boolean"
