"""The budget-vs-actual cloud spreadsheet (shared with the CFO), Budget_Memo.docx, and the mail to the CFO."""

import json
import re
from typing import Any

from harness.checks import SENDING_MAIL, Criterion, World, no_one_else_mailed, nothing_else_changed

DEPTS = ["ENG", "SALES", "MKT", "OPS"]
TITLE = "FY2026 Q1-Q3 Budget vs Actual"
HEAD = ["department", "budget", "actual", "variance", "variance %"]
ACCOUNT_HEAD = ["account", "name", "budget", "actual", "variance", "variance %"]


def number(value: Any) -> float | None:
    """A number from a cell ('-432,213.51', '$1,234.50', '−7.4%', '(432,213.51)' for a negative)."""
    text = re.sub(r"[,$%\s]|USD", "", str(value)).replace("\u2212", "-")
    if re.fullmatch(r"\(.*\)", text):
        text = "-" + text[1:-1]
    try:
        return float(text)
    except ValueError:
        return None


def near(value: Any, expected: float, tol: float) -> bool:
    """Within `tol` (half a cent for money, 0.05 for a % with one decimal) of the exact value."""
    got = number(value)
    return got is not None and abs(got - expected) <= tol + 1e-9


def accounts(world: World, code: str) -> list[list[Any]]:
    """Account, name, budget, actual, variance, variance % of one department, by account number."""
    budget = world.query(
        """SELECT a.account_number, a.name, SUM(b.amount) AS amount FROM warehouse_budgets b
           JOIN warehouse_departments d ON d.id = b.department_id JOIN warehouse_gl_accounts a ON a.id = b.account_id
           WHERE d.code = :code AND b.fiscal_year = 2026 AND b.fiscal_quarter <= 3
             AND a.category IN ('Personnel', 'Operating')
           GROUP BY a.account_number, a.name ORDER BY a.account_number""",
        code=code,
    )
    actual = {
        r["account_number"]: float(r["amount"])
        for r in world.query(
            """SELECT a.account_number, SUM(g.amount) AS amount FROM warehouse_gl_entries g
               JOIN warehouse_departments d ON d.id = g.department_id JOIN warehouse_gl_accounts a ON a.id = g.account_id
               WHERE d.code = :code AND g.period BETWEEN '2026-01' AND '2026-09'
                 AND a.category IN ('Personnel', 'Operating')
               GROUP BY a.account_number""",
            code=code,
        )
    }
    out = []
    for r in budget:
        b, a = float(r["amount"]), actual.get(r["account_number"], 0.0)
        out.append([r["account_number"], r["name"], b, a, a - b, 100 * (a - b) / b])
    return out


def summary(data: dict[str, list[list[Any]]]) -> list[list[Any]]:
    out = []
    for code in DEPTS:
        b = sum(r[2] for r in data[code])
        a = sum(r[3] for r in data[code])
        out.append([code, b, a, a - b, 100 * (a - b) / b])
    return out


def same_text(value: Any, expected: Any) -> bool:
    """Equal labels; an account number may come back as a number (6000 or 6000.0)."""
    text = str(value).strip()
    return text == str(expected) or (number(text) is not None and number(text) == number(expected))


def rows_match(got: list[list[Any]], want: list[list[Any]], text_cols: int) -> bool:
    """Same rows in order: text columns equal, money to the cent, the last column (a %) to one decimal."""
    return len(got) == len(want) and all(
        len(g) >= len(w)
        and all(same_text(g[i], w[i]) for i in range(text_cols))
        and all(near(g[i], w[i], 0.005) for i in range(text_cols, len(w) - 1))
        and near(g[len(w) - 1], w[-1], 0.05)
        for g, w in zip(got, want, strict=True)
    )


def sheet_rows(world: World, sheet_id: int) -> list[list[Any]]:
    cells = world.sheet_cells(sheet_id)
    if not cells:
        return []
    height = max(r for r, _ in cells)
    width = max(c for _, c in cells)
    grid: list[list[Any]] = [[None] * width for _ in range(height)]
    for (r, c), value in cells.items():
        grid[r - 1][c - 1] = value
    return grid


def check_spreadsheet(world: World, data: dict[str, list[list[Any]]], cfo: str) -> list[Criterion]:
    books = [
        b
        for b in world.rows("sheets_spreadsheet", owner="me@company.example")
        if b["title"].strip().lower() == TITLE.lower()
    ]
    if len(books) != 1:
        return [Criterion("spreadsheet", False, f"{len(books)} spreadsheets titled '{TITLE}'")]
    book = books[0]
    sheets = {s["title"]: s["id"] for s in world.rows("sheets_sheet", spreadsheet_id=book["id"])}
    out = []
    for name, head, want, text_cols in [
        ("Summary", HEAD, summary(data), 1),
        *[(code, ACCOUNT_HEAD, data[code], 2) for code in DEPTS],
    ]:
        grid = sheet_rows(world, sheets[name]) if name in sheets else []
        header = [str(v).strip().lower() for v in grid[0][: len(head)]] if grid else []
        out.append(
            Criterion.of(
                f"{name} sheet",
                header == head and rows_match(grid[1:], want, text_cols),
                f"sheet {name!r} should hold {head} with {len(want)} rows ({[w[0] for w in want]})",
            )
        )
    shares = {
        p["email"].lower(): p["role"]
        for p in world.rows("sheets_permission", spreadsheet_id=book["id"])
        if p["role"] != "owner"
    }
    role = shares.get(cfo)
    out.append(Criterion.of("shared with the CFO", role == "commenter", f"the CFO's access is {role!r}"))
    others = sorted(set(shares) - {cfo})
    out.append(Criterion.of("shared with the CFO only", not others, f"also shared with {others}"))
    return out


def check_memo(world: World, data: dict[str, list[list[Any]]]) -> list[Criterion]:
    doc = world.docx("Budget_Memo.docx")
    if doc is None:
        return [Criterion("memo", False, "Budget_Memo.docx is missing or unreadable")]
    tables = [[[c.text.strip() for c in row.cells] for row in t.rows] for t in doc.tables]
    by_head: dict[tuple[str, ...], list[list[str]]] = {}
    for t in tables:  # the first table with a header counts
        if t:
            by_head.setdefault(tuple(h.strip().lower() for h in t[0]), t[1:])
    overruns = sorted(
        ([code, r[0], r[1], r[4]] for code in DEPTS for r in data[code]), key=lambda r: r[3], reverse=True
    )[:3]
    top = by_head.get(("department", "account", "name", "variance"), [])
    return [
        Criterion.of(
            "memo title",
            (doc.core_properties.title or "").strip().lower() == TITLE.lower()
            or any(p.text.strip().lower() == TITLE.lower() for p in doc.paragraphs[:3]),
            f"the memo is not titled '{TITLE}'",
        ),
        Criterion.of(
            "memo summary",
            rows_match(by_head.get(tuple(HEAD), []), summary(data), 1),
            "the memo's summary table does not match the four departments' totals",
        ),
        Criterion.of(
            "memo overruns",
            len(top) == 3
            and all(
                len(g) >= 4
                and all(same_text(a, b) for a, b in zip(g[:3], w[:3], strict=True))
                and near(g[3], w[3], 0.005)
                for g, w in zip(top, overruns, strict=True)
            ),
            f"the overruns table should list {[w[:2] for w in overruns]}; it has {[g[:2] for g in top]}",
        ),
    ]


def others_changed(world: World) -> list[str]:
    """Changes other than the budget spreadsheet and its shares (with whom is checked on its own), besides
    the mail. The warehouse is read-only."""
    return world.changes(
        "sheets",
        "mail",
        allow={
            **world.new_spreadsheet(TITLE),
            **SENDING_MAIL,
        },
    )


def check(world: World) -> list[Criterion]:
    data = {code: accounts(world, code) for code in DEPTS}
    cfo = world.rows("mail_contact", title="CFO")[0]["email"].lower()
    sent = world.sent_mail()
    mailed = [
        m
        for m in sent
        if cfo in m["to_addrs"].split(", ")
        and m["subject"].strip().lower() == "fy2026 q1-q3 budget vs actual"
        and "Budget_Memo.docx" in {a.removeprefix("./") for a in json.loads(m["attachments"])}
        and world.sent_as_final(m["id"], "Budget_Memo.docx")
        and TITLE.lower() in m["body"].lower()
    ]
    return [
        *check_spreadsheet(world, data, cfo),
        *check_memo(world, data),
        Criterion.of(
            "mail to the CFO",
            bool(mailed),
            f"no mail to {cfo} titled 'FY2026 Q1-Q3 budget vs actual' with the memo (as it is now) and the spreadsheet's title",
        ),
        nothing_else_changed(others_changed(world)),
        no_one_else_mailed(world, {cfo}),
    ]
