"""YAML inputs that used to hang, eat memory or print a traceback: each is one problem line."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from contracts.errors import InputError, Problem
from contracts.yamlio import MAX_EXPANDED_NODES, read_yaml
from tests.harness.cli_support import catalog_copy, mseval, one_line_error


def problems(tmp_path: Path, text: str) -> list[str]:
    path = tmp_path / "f.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as caught:
        read_yaml(path)
    return [str(p) for p in caught.value.problems]


def test_an_alias_bomb_is_refused_before_it_is_expanded(tmp_path: Path) -> None:
    """Eight lines of nested aliases stand for 10^8 values: reading them took 12 s and 2.2 GB
    (one level more never ended)."""
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, 8)]
    assert problems(tmp_path, "\n".join(lines) + "\n") == [  # a4 = 111,111 values: its line
        f"{tmp_path / 'f.yaml'}:5: invalid YAML: its aliases expand to more than {MAX_EXPANDED_NODES:,} values"
    ]


def test_ordinary_aliases_still_load(tmp_path: Path) -> None:
    path = tmp_path / "f.yaml"
    path.write_text("base: &b {rpm: 5}\nproviders:\n  openai: *b\n  anthropic: *b\n")
    data, lines = read_yaml(path)
    assert data["providers"] == {"openai": {"rpm": 5}, "anthropic": {"rpm": 5}}
    assert lines[("providers", "anthropic")] == 4


def test_only_yaml_1_2_booleans_are_read_as_true_or_false(tmp_path: Path) -> None:
    """YAML 1.1's yes/no/on/off/y/n are text (a yes-or-no field then refuses them); true and
    false, in any of YAML 1.2's three spellings, are booleans."""
    words = ["yes", "no", "on", "off", "y", "n", "Yes", "OFF"]
    bools = ["true", "True", "TRUE", "false", "False", "FALSE"]
    path = tmp_path / "f.yaml"
    path.write_text("".join(f"k{i}: {w}\n" for i, w in enumerate(words + bools)))
    data, _ = read_yaml(path)
    assert list(data.values()) == words + [True] * 3 + [False] * 3


def test_an_integer_python_refuses_is_one_problem_at_its_line(tmp_path: Path) -> None:
    (message,) = problems(tmp_path, "budgets:\n  max_steps: 1" + "0" * 5000 + "\n")
    assert message.startswith(
        f"{tmp_path / 'f.yaml'}:2: invalid YAML: cannot read '1{'0' * 39}…' as !!int: Exceeds the limit"
    ), message


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ("!!timestamp x", "cannot read 'x' as !!timestamp"),  # was AttributeError
        ("!!bool maybe", "cannot read 'maybe' as !!bool"),  # was KeyError
        ('!!int ""', "cannot read '' as !!int"),  # was IndexError
        ('!!float ""', "cannot read '' as !!float"),  # was IndexError
        (
            '!!int "1:x"',  # was told without a line
            "cannot read '1:x' as !!int: invalid literal for int() with base 10: 'x'",
        ),
        ("2026-13-45", "cannot read '2026-13-45' as !!timestamp: month must be in 1..12"),  # no line either
    ],
)
def test_a_value_its_tag_cannot_build_is_one_problem_at_its_line(
    tmp_path: Path, value: str, problem: str
) -> None:
    assert problems(tmp_path, f"id: t\nsettings:\n  extra:\n    a: {value}\n") == [
        f"{tmp_path / 'f.yaml'}:4: invalid YAML: {problem}"
    ]


def test_a_config_file_value_its_tag_cannot_build_is_one_line_and_nothing_is_written(tmp_path: Path) -> None:
    """`--config` with `!!bool maybe` printed a KeyError traceback."""
    config = tmp_path / "cfg.yaml"
    config.write_text("settings:\n  temperature: 0\n  extra: {k: !!bool maybe}\n")
    assert run_with_config(tmp_path, config) == f"{config}:3: invalid YAML: cannot read 'maybe' as !!bool"


def run_with_config(tmp_path: Path, config: Path) -> str:
    """The one-line error of a `mseval run` given `--config config`, which must write nothing."""
    store, runs = tmp_path / "s.db", tmp_path / "runs"
    result = mseval(
        "run", "-m", "sim:oracle", "-v", "sa", "--tasks", "lms-due-reminder", "--config", str(config),
        "--store", f"sqlite:///{store}", "--runs-dir", str(runs),
    )  # fmt: skip
    line = one_line_error(result)
    assert not store.exists() and not runs.exists()
    return line


def test_nesting_too_deep_is_one_problem(tmp_path: Path) -> None:
    """libyaml stops at its depth limit, at the line it reached; PyYAML's own parser would raise
    RecursionError, told the same way with no line."""
    assert problems(tmp_path, "deep: " + "[" * 20_000 + "]" * 20_000 + "\n") == [
        f"{tmp_path / 'f.yaml'}:1: invalid YAML: nested too deeply"
    ]


def test_a_control_character_is_named_at_its_line_on_one_line(tmp_path: Path) -> None:
    (message,) = problems(tmp_path, "id: t\nprompt: keynote \x07candidate\n")
    assert message == f"{tmp_path / 'f.yaml'}:2: invalid YAML: control characters are not allowed (U+0007)"


def test_a_control_character_after_wide_characters_is_named_at_its_own_line(tmp_path: Path) -> None:
    """libyaml gives the byte offset of the character: counted as characters, text before it
    with é, € or emoji put it a line or more further down."""
    text = "a: " + "é€😀" * 30 + "\n\nb: x\n\nc: \x1b\n"
    (message,) = problems(tmp_path, text)
    assert message == f"{tmp_path / 'f.yaml'}:5: invalid YAML: control characters are not allowed (U+001B)"


def test_a_lone_surrogate_in_given_text_is_one_problem_at_its_line() -> None:
    """Text handed in (not read from a file, where strict UTF-8 cannot yield one) with a lone
    surrogate: libyaml cannot take it, and said so with a UnicodeEncodeError."""
    with pytest.raises(InputError) as caught:
        read_yaml(Path("f.yaml"), "a: b\nc: \ud800\n")
    assert [str(p) for p in caught.value.problems] == [
        "f.yaml:2: invalid YAML: a lone surrogate is not allowed (U+D800)"
    ]


def test_a_message_quoting_a_newline_stays_on_one_line() -> None:
    assert (
        str(Problem("c.yaml", 3, "unknown provider 'foo\nbar'")) == "c.yaml:3: unknown provider 'foo\\nbar'"
    )


def test_bytes_that_are_not_utf8_are_named_at_the_line_of_the_first(tmp_path: Path) -> None:
    """A task.yaml, prior or config with a Latin-1 byte was `FILE: not UTF-8 text`, no line."""
    tasks, priors, env = catalog_copy(tmp_path)
    task = tasks / "lms" / "lms-due-reminder" / "task.yaml"
    task.write_bytes(task.read_bytes().replace(b"title: Reminder", b"title: R\xe9minder", 1))
    line = one_line_error(mseval("tasks", "validate", "lms-due-reminder", env=env))
    assert line == f"{task}:3: not UTF-8 text (byte 0xe9 at column 9)"
    config = tmp_path / "cfg.yaml"
    config.write_bytes(b"settings:\n  temperature: 0\n  extra: {k: caf\xe9}\n")
    assert run_with_config(tmp_path, config) == f"{config}:3: not UTF-8 text (byte 0xe9 at column 17)"


def test_a_file_of_too_many_values_is_refused_at_the_line_that_passes_the_bound(tmp_path: Path) -> None:
    """A file of 200,000 values and no alias was told `FILE: invalid YAML: its aliases expand to
    more than 100,000 values`: no line, and aliases it does not have."""
    assert problems(tmp_path, "- x\n" * 200_000) == [
        f"{tmp_path / 'f.yaml'}:{MAX_EXPANDED_NODES + 1}: invalid YAML: more than {MAX_EXPANDED_NODES:,} values, "
        "more than any input of mseval holds"
    ]


def test_a_task_of_200000_setup_steps_is_one_line_at_a_step(tmp_path: Path) -> None:
    tasks, _, env = catalog_copy(tmp_path)
    task = tasks / "lms" / "lms-due-reminder" / "task.yaml"
    text = task.read_text() + "setup:\n" + "- {sql: x}\n" * 200_000
    task.write_text(text)
    line = one_line_error(mseval("tasks", "validate", "lms-due-reminder", env=env))
    file, number, message = line.split(":", 2)
    assert file == str(task) and message == (
        f" invalid YAML: more than {MAX_EXPANDED_NODES:,} values, more than any input of mseval holds"
    )
    assert text.splitlines()[int(number) - 1] == "- {sql: x}" and int(number) < 40_000, number


def test_a_date_given_as_a_title_is_told_to_be_quoted(tmp_path: Path) -> None:
    """`title: 2024-01-02` said only 'title: Input should be a valid string': YAML had read a
    date, which the author meant as text. Any text field read as a date or time says so."""
    tasks, _priors, env = catalog_copy(tmp_path)
    spec = tasks / "lms" / "lms-due-reminder" / "task.yaml"
    text = spec.read_text()
    title = next(line for line in text.splitlines() if line.startswith("title:"))
    line_no = text.splitlines().index(title) + 1
    for given, said in (
        ("2024-01-02", "YAML reads 2024-01-02 as a date; quote it for text: '2024-01-02'"),
        (
            "2024-01-02 10:30:00",
            "YAML reads 2024-01-02 10:30:00 as a date and time; quote it for text: '2024-01-02 10:30:00'",
        ),
    ):
        spec.write_text(text.replace(title, f"title: {given}"))
        line = one_line_error(mseval("tasks", "list", env=env))
        assert line == f"{spec}:{line_no}: title: Input should be a valid string ({said})"
    spec.write_text(text.replace(title, "title: '2024-01-02'"))
    result = mseval("tasks", "list", env=env)
    assert result.returncode == 0 and "2024-01-02" in result.stdout, result.stderr


def _list_with_budgets(tmp_path: Path, budgets: str) -> tuple[subprocess.CompletedProcess[str], Path, int]:
    """`mseval tasks list` on a copy of lms-due-reminder whose task.yaml has the `budgets:` lines
    `budgets`: the result, the task.yaml and the line of the first budget."""
    tasks, _priors, env = catalog_copy(tmp_path)
    spec = tasks / "lms" / "lms-due-reminder" / "task.yaml"
    text = spec.read_text()
    spec.write_text(text.replace("servers:", f"budgets:\n{budgets}servers:", 1))
    return mseval("tasks", "list", env=env), spec, text.splitlines().index("servers:") + 2


def test_a_boolean_budget_in_a_task_is_refused_at_its_line(tmp_path: Path) -> None:
    """`budgets: {max_steps: true}` ran the task with one step per agent, without a word."""
    result, spec, line_no = _list_with_budgets(tmp_path, "  max_steps: true\n  wall_time_s: 1e12\n")
    assert result.returncode == 2 and result.stderr.splitlines() == [
        f"{spec}:{line_no}: budgets.max_steps: give a number, not true",
        f"{spec}:{line_no + 1}: budgets.wall_time_s: Input should be less than or equal to 604800",
    ]


def test_a_whole_number_written_with_an_exponent_is_told_what_to_write(tmp_path: Path) -> None:
    """YAML 1.1 reads `max_steps: 1e5` as the text '1e5' (an exponent needs a dot and a sign), so
    the line said only 'unable to parse string as an integer', about a number the author wrote."""
    result, spec, line_no = _list_with_budgets(tmp_path / "a", "  max_steps: 1e3\n")
    assert result.returncode == 2 and result.stderr.splitlines() == [
        f"{spec}:{line_no}: budgets.max_steps: Input should be a valid integer, unable to parse string "
        "as an integer (YAML reads 1e3 as text; write 1000)"
    ]
    assert _list_with_budgets(tmp_path / "b", "  max_steps: 1000\n")[0].returncode == 0
