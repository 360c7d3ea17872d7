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
