"""What a task's check sees of the final world (harness/checks.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from openpyxl import Workbook

from harness.checks import World
from mcp_servers.common.db import make_engine


def test_a_workbook_is_read_with_its_formulas_computed(tmp_path: Path) -> None:
    """openpyxl gives a formula's text: a Total row written as =SUM(B2:B3) was compared with the
    sum as the string '=SUM(B2:B3)' and failed, though the agent's own reads showed 1650.5."""
    book = Workbook()
    spend = book.active
    spend.title = "Spend"
    for row in (["Item", "Cost"], ["Laptops", 1200], ["Desks", 450.5], ["Total", "=SUM(B2:B3)"]):
        spend.append(row)
    rates = book.create_sheet("Rates")
    rates["A1"] = 1.2
    rates["A2"] = "=Spend!B4*A1"  # another sheet's formula: 1650.5 × 1.2 = 1980.6
    book.save(tmp_path / "Report.xlsx")
    read = World(make_engine("sqlite://"), tmp_path).xlsx("Report.xlsx")
    assert [c.value for c in read["Spend"]["B"]] == ["Cost", 1200, 450.5, 1650.5]
    assert abs(read["Rates"]["A2"].value - 1980.6) < 1e-9
    assert read["Spend"]["A4"].value == "Total"


def test_changes_names_each_row_added_changed_or_removed_and_respects_allowances(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A SQLite world is compared with its template inside SQLite: the same lines as the typed
    row-by-row comparison (still used on PostgreSQL), typed values in them, the allowances applied
    to exactly the differing rows; a folder named with '?', '#' or '%' is no trouble."""
    from sqlalchemy import text

    from harness.catalog import load_tasks
    from harness.checks import new_rows, nothing_else_changed
    from harness.world import create_world

    (task,) = load_tasks("lms-due-reminder")
    # a '?' in a raw URL ended the path: every episode's world was one file, `runs`, beside it
    world = create_world(task, "e1", tmp_path / "runs?2#3 50%")
    assert not (tmp_path / "runs").exists() and (tmp_path / "runs?2#3 50%" / "e1").is_dir()
    try:
        check = world.for_check()
        before = check.changes("lms")  # what the task's setup changed, if anything
        with world.engine.begin() as conn:
            conn.execute(text("UPDATE lms_enrollment SET status = 'dropped' WHERE id = 3"))
            conn.execute(text("DELETE FROM lms_grade WHERE id = 2"))
            conn.execute(
                text(
                    "INSERT INTO lms_announcement (id, course_id, title, body, posted_at, author) "
                    "VALUES (9001, 1, 'Hi', 'Body', '2026-11-20 09:00:00', 'Dr. X')"
                )
            )
        found = [line for line in check.changes("lms") if line not in before]
        status = check.rows("lms_enrollment", id=3)[0]
        assert sorted(found) == sorted(
            [
                "lms_announcement 9001 added",
                "lms_grade 2 removed",
                "lms_enrollment 3: status 'active' -> 'dropped'",
            ]
        ), found
        assert status["status"] == "dropped"
        allowed = check.changes(
            "lms",
            allow={
                "lms_announcement": new_rows("course_id", {1}),
                "lms_enrollment": lambda seeded, final: {"status"},
                "lms_grade": lambda seeded, final: final is None,
            },
        )
        assert [line for line in allowed if line not in before] == []
        # the row-by-row comparison of every typed row says the same
        from harness import checks

        slow = checks._Differences(world.engine)
        slow.close()
        slow.conn = None
        monkeypatch.setattr(checks, "_Differences", lambda engine: slow)
        assert sorted(check.changes("lms")) == sorted([*before, *found])
        assert nothing_else_changed(found).message.startswith("unexpected changes: ")
    finally:
        world.close()


def test_the_world_reads_no_file_out_of_the_workspace_nor_one_too_large(tmp_path: Path) -> None:
    """A check read what a path named, links followed anywhere: the agent's link to a host file
    graded as its work, a zip bomb was unpacked and a 10 GB text read into memory. Now None for a
    link leading out, a zip that unpacks past 40 MB, and text over 10 MB; a link inside is read."""
    import zipfile

    from harness.checks import MAX_TEXT_BYTES

    outside, workspace = tmp_path / "host", tmp_path / "ws"
    outside.mkdir()
    workspace.mkdir()
    (outside / "secret.txt").write_text("host file")
    book = Workbook()
    book.active["A1"] = "host book"
    book.save(outside / "Host.xlsx")
    (workspace / "Out.txt").symlink_to(outside / "secret.txt")
    (workspace / "Out.xlsx").symlink_to(outside / "Host.xlsx")
    (workspace / "answer.txt").write_text("42")
    (workspace / "In.txt").symlink_to(workspace / "answer.txt")
    (workspace / "Big.txt").write_bytes(b"x" * (MAX_TEXT_BYTES + 1))
    with zipfile.ZipFile(workspace / "Bomb.xlsx", "w", zipfile.ZIP_DEFLATED) as bomb:
        bomb.writestr("[Content_Types].xml", b"\0" * 41_000_000)  # unpacks past the 40 MB cap
    world = World(make_engine("sqlite://"), workspace)
    assert world.read_text("Out.txt") is None and world.xlsx("Out.xlsx") is None
    assert world.read_text("../host/secret.txt") is None
    assert world.read_text("In.txt") == "42"
    assert world.read_text("Big.txt") is None
    assert world.xlsx("Bomb.xlsx") is None and world.docx("Bomb.xlsx") is None
