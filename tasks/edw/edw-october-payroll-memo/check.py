"""Payroll_October_2026.docx: per-department salaries, taxes and benefits, total, and a company total row."""

import re
from typing import Any

from harness.checks import Criterion, World, nothing_else_changed


def number(text: str) -> float | None:
    try:
        return float(re.sub(r"[,$\s]|USD", "", text))
    except ValueError:
        return None


def expected(world: World) -> list[list[Any]]:
    rows = world.query(
        """SELECT d.name,
             SUM(CASE WHEN a.account_number = '6000' THEN g.amount ELSE 0 END) AS salaries,
             SUM(CASE WHEN a.account_number = '6100' THEN g.amount ELSE 0 END) AS benefits
           FROM warehouse_gl_entries g JOIN warehouse_gl_accounts a ON a.id = g.account_id
           JOIN warehouse_departments d ON d.id = g.department_id
           WHERE g.period = '2026-10' AND a.account_number IN ('6000', '6100')
           GROUP BY d.name ORDER BY d.name"""
    )
    out = [[r["name"], float(r["salaries"]), float(r["benefits"])] for r in rows]
    out = [[n, s, b, s + b] for n, s, b in out]
    out.append(["Total", *(sum(r[i] for r in out) for i in (1, 2, 3))])
    return out


def others_changed(world: World) -> list[str]:
    """Changes to the world's records: the task only reads them."""
    return world.changes("warehouse")


def check(world: World) -> list[Criterion]:
    doc = world.docx("Payroll_October_2026.docx")
    if doc is None:
        return [Criterion("document", False, "Payroll_October_2026.docx is missing or unreadable")]
    want = expected(world)
    tables = [[[c.text.strip() for c in row.cells] for row in t.rows] for t in doc.tables]
    table = next((t for t in tables if t and [h.lower() for h in t[0]][:4] == [
        "department", "salaries", "taxes and benefits", "total"]), None)  # fmt: skip
    got = table[1:] if table else []
    bad = [
        f"{w[0]}: {g}"
        for g, w in zip(got, want, strict=False)
        if not (
            len(g) >= 4
            and g[0].lower() == w[0].lower()
            and all(
                number(x) is not None and abs(number(x) - v) <= 0.005 + 1e-9  # to the cent
                for x, v in zip(g[1:4], w[1:], strict=True)
            )
        )
    ]
    return [
        Criterion.of(
            "title",
            (doc.core_properties.title or "").strip().lower() == "payroll october 2026"
            or any(p.text.strip().lower() == "payroll october 2026" for p in doc.paragraphs[:3]),
            "the document is not titled 'Payroll October 2026'",
        ),
        Criterion.of(
            "payroll table", table is not None, "no table with the header Department, Salaries, ..."
        ),
        Criterion.of(
            "rows",
            table is not None and len(got) == len(want) and not bad,
            f"{len(got)} rows for {len(want)} expected (departments by name, then Total); wrong: {bad}",
        ),
        nothing_else_changed(others_changed(world)),
    ]
