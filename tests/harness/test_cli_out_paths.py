"""`--out` paths that cannot be written: one line naming the option, exit 2, before any work.

Tests run as root, so permission bits stop nothing: the unwritable places here are a file
where a folder is expected (or the reverse), /sys, and a folder that refuses new files."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from contracts.errors import InputError
from harness.cli.common import check_out_path
from tests.evaluation import fixtures
from tests.harness.cli_support import mseval, one_line_error


def _refuses_files(folder: Path) -> bool:
    try:
        tempfile.TemporaryFile(dir=folder).close()
    except OSError:
        return True
    return False


SYS_READ_ONLY = Path("/sys").is_dir() and _refuses_files(Path("/sys"))


@pytest.fixture
def empty_store(tmp_path: Path) -> str:
    from harness.store import Store

    url = f"sqlite:///{tmp_path / 'store.db'}"
    Store(url).close()
    return url


def test_export_checks_the_runs_file_beside_its_out_before_exporting(
    tmp_path: Path, empty_store: str
) -> None:
    """A folder where FILE.runs.json goes: the export was written, then IsADirectoryError (exit 1)."""
    out = tmp_path / "ex.jsonl"
    (tmp_path / "ex.runs.json").mkdir()
    line = one_line_error(mseval("export", "--store", empty_store, "--out", str(out)))
    assert line == f"--out (its run identities): {tmp_path / 'ex.runs.json'} is a folder; give a file"
    assert not out.exists()


@pytest.mark.skipif(not SYS_READ_ONLY, reason="needs a /sys that refuses new files")
def test_export_to_a_place_that_refuses_files_is_bad_input(empty_store: str) -> None:
    line = one_line_error(mseval("export", "--store", empty_store, "--out", "/sys/mseval_x.jsonl"))
    assert line.startswith("--out: cannot write /sys/mseval_x.jsonl (/sys): "), line


@pytest.mark.skipif(not SYS_READ_ONLY, reason="needs a /sys that refuses new files")
def test_report_to_a_place_that_refuses_files_is_bad_input(tmp_path: Path) -> None:
    """A PermissionError traceback (exit 1) after all the scoring work."""
    episodes = tmp_path / "run.jsonl"
    episodes.write_text("".join(r.to_json() + "\n" for r in fixtures.records()))
    line = one_line_error(
        mseval("report", "--episodes", str(episodes), "--out", "/sys/mseval_x", "--embedder", "none")
    )
    assert line.startswith("--out: cannot write /sys/mseval_x (/sys): "), line


def test_report_whose_file_is_a_folder_names_out(tmp_path: Path) -> None:
    """A folder where report.md goes passes every check beforehand; the write is named all the same."""
    episodes = tmp_path / "run.jsonl"
    episodes.write_text("".join(r.to_json() + "\n" for r in fixtures.records()))
    out = tmp_path / "report"
    (out / "report.md").mkdir(parents=True)
    args = ("--resamples", "20", "--embedder", "none")
    result = mseval("report", "--episodes", str(episodes), "--out", str(out), *args)
    assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr
    line = result.stderr.strip().splitlines()[-1]  # after the score's warnings
    assert line.startswith(f"--out: cannot write {out / 'report.md'}: "), line


def test_a_folder_that_refuses_new_files_is_refused_up_front(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As a read-only mount does (EROFS), whoever runs the command."""

    def read_only(*_args: object, **_kwargs: object) -> None:
        raise OSError(30, "Read-only file system")

    monkeypatch.setattr(tempfile, "TemporaryFile", read_only)
    for path, folder in ((tmp_path, True), (tmp_path / "new" / "out", True), (tmp_path / "x.jsonl", False)):
        with pytest.raises(InputError) as caught:
            check_out_path(path, "--out", folder=folder)
        assert caught.value.problems[0].file == "--out"
        assert caught.value.problems[0].message.endswith(": Read-only file system")
    assert list(tmp_path.iterdir()) == []  # nothing created by the check


def test_a_writable_out_passes_and_leaves_nothing_behind(tmp_path: Path) -> None:
    existing = tmp_path / "kept.jsonl"
    existing.write_text("x\n")
    check_out_path(existing, "--out", folder=False)
    check_out_path(tmp_path / "a" / "b", "--out", folder=True)
    check_out_path(tmp_path, "--out", folder=True)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kept.jsonl"]
    assert existing.read_text() == "x\n"


LONG_NAME = "x" * 300  # over the 255 bytes a file name may have


@pytest.mark.parametrize("kind", ["long name", "symlink loop", "dangling symlink"])
@pytest.mark.parametrize("command", ["run --runs-dir", "export --out", "report --out"])
def test_an_out_path_that_cannot_be_looked_up_is_one_line(
    tmp_path: Path, empty_store: str, kind: str, command: str
) -> None:
    """Path.exists() raised OSError (File name too long, a traceback); a loop or a link to nothing
    passed the check, then the write raised (ELOOP, FileNotFoundError) or the run recorded an
    absent episode (mkdir: FileExistsError)."""
    out = tmp_path / (LONG_NAME if kind == "long name" else "link")
    if kind == "symlink loop":
        out.symlink_to(out)
    elif kind == "dangling symlink":  # into a folder that is not there either
        out.symlink_to(tmp_path / "nowhere" / "deeper")
    before = sorted(tmp_path.iterdir())
    episodes = tmp_path / "run.jsonl"
    args = {
        "run --runs-dir": ("run", "-m", "sim:oracle", "-v", "sa", "--tasks", "lms-due-reminder",
                           "--store", f"sqlite:///{tmp_path / 'new.db'}", "--runs-dir", str(out)),
        "export --out": ("export", "--store", empty_store, "--out", str(out)),
        "report --out": ("report", "--episodes", str(episodes), "--out", str(out), "--embedder", "none"),
    }[command]  # fmt: skip
    if command == "report --out":
        episodes.write_text("".join(r.to_json() + "\n" for r in fixtures.records()))
        before = sorted(tmp_path.iterdir())
    line = one_line_error(mseval(*args))
    option = command.split()[1]
    reason = {
        "long name": "File name too long",
        "symlink loop": "Too many levels of symbolic links",
        "dangling symlink": f"a symbolic link to {tmp_path / 'nowhere' / 'deeper'}, which does not exist",
    }[kind]
    assert line == f"{option}: cannot use {out}: {reason}"
    assert sorted(tmp_path.iterdir()) == before  # no store, no runs folder, no export


def test_a_file_given_as_a_link_to_a_file_not_made_yet_is_written_through_it(
    tmp_path: Path, empty_store: str
) -> None:
    """A link to a file not made yet, in a folder that is there (runs/mseval.db -> /data/m.db),
    is how one keeps a store or an export elsewhere: writing it creates the file, as it did
    before paths that cannot be looked up were refused."""
    (tmp_path / "data").mkdir()
    out, store = tmp_path / "out.jsonl", tmp_path / "linked.db"
    out.symlink_to(tmp_path / "data" / "out.jsonl")
    store.symlink_to(tmp_path / "data" / "m.db")
    assert mseval("export", "--store", empty_store, "--out", str(out)).returncode == 0
    ran = mseval("run", "-m", "sim:oracle", "-v", "sa", "--tasks", "lms-due-reminder", "--store", f"sqlite:///{store}",
                 "--runs-dir", str(tmp_path / "runs"))  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    assert (tmp_path / "data" / "out.jsonl").is_file() and (tmp_path / "data" / "m.db").is_file()


def test_a_folder_on_the_way_that_links_to_nothing_is_named(tmp_path: Path) -> None:
    (tmp_path / "gone").symlink_to(tmp_path / "nowhere")
    with pytest.raises(InputError) as caught:
        check_out_path(tmp_path / "gone" / "runs", "--runs-dir", folder=True)
    assert str(caught.value) == (
        f"--runs-dir: cannot use {tmp_path}/gone/runs: "
        f"{tmp_path}/gone is a symbolic link to {tmp_path}/nowhere, which does not exist"
    )
