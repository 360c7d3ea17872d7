"""What a task's check sees of the final world (harness/checks.py)."""

from __future__ import annotations

from pathlib import Path

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
