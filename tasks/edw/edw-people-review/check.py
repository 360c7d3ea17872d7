"""People_Review_2026.docx: the department table and the promotions table; the mail to the HR Director."""

import json
import re
from typing import Any

from harness.checks import SENDING_MAIL, Criterion, World, no_one_else_mailed, nothing_else_changed

DEPTS = ["ENG", "SALES", "SUP", "OPS"]
HEAD = [
    "department", "active", "full-time", "part-time", "hires 2026", "leavers 2026",
    "average salary", "lowest salary", "highest salary",
]  # fmt: skip
PROMO_HEAD = ["employee number", "name", "department", "title", "new salary"]
TODAY = "2026-11-20"

MAILED = {"victor.haddad@company.example"}  # the only recipients the task has


def number(text: str) -> float | None:
    try:
        return float(re.sub(r"[,$\s]|USD", "", text))
    except ValueError:
        return None


def current_salary(world: World, employee_id: int) -> float:
    rows = world.query(
        """SELECT annual_salary FROM warehouse_salaries WHERE employee_id = :e AND effective_date <= :today
           ORDER BY effective_date DESC LIMIT 1""",
        e=employee_id,
        today=TODAY,
    )
    return float(rows[0]["annual_salary"])


def department_row(world: World, code: str) -> tuple[str, list[float]]:
    dept = world.rows("warehouse_departments", code=code)[0]
    people = world.rows("warehouse_employees", department_id=dept["id"])
    active = [e for e in people if e["status"] == "active"]
    pay = [current_salary(world, e["id"]) for e in active]

    def in_2026(day: str | None) -> bool:
        return day is not None and "2026-01-01" <= day <= TODAY

    return dept["name"], [
        len(active),
        sum(e["employment_type"] == "full-time" for e in active),
        sum(e["employment_type"] == "part-time" for e in active),
        sum(in_2026(e["hire_date"]) for e in people),
        sum(in_2026(e["termination_date"]) for e in people),
        sum(pay) / len(pay),
        min(pay),
        max(pay),
    ]


def promotions(world: World) -> list[list[Any]]:
    out = []
    for code in DEPTS:
        rows = world.query(
            """SELECT e.employee_number, e.name, d.name AS department, e.title, s.annual_salary
               FROM warehouse_salaries s JOIN warehouse_employees e ON e.id = s.employee_id
               JOIN warehouse_departments d ON d.id = e.department_id
               WHERE d.code = :code AND s.reason = 'promotion' AND s.effective_date BETWEEN '2026-01-01' AND :today
               ORDER BY e.employee_number""",
            code=code,
            today=TODAY,
        )
        out += [
            [r["employee_number"], r["name"], r["department"], r["title"], float(r["annual_salary"])]
            for r in rows
        ]
    return out


def others_changed(world: World) -> list[str]:
    """Changes to the world's records: the task only reads them (and sends mail)."""
    return world.changes(
        "warehouse",
        "mail",
        allow=SENDING_MAIL,
    )


def check(world: World) -> list[Criterion]:
    doc = world.docx("People_Review_2026.docx")
    if doc is None:
        return [Criterion("document", False, "People_Review_2026.docx is missing or unreadable")]
    tables = [[[c.text.strip() for c in row.cells] for row in t.rows] for t in doc.tables]
    by_head: dict[tuple[str, ...], list[list[str]]] = {}
    for t in tables:  # the first table with a header counts
        if t:
            by_head.setdefault(tuple(h.strip().lower() for h in t[0]), t)
    out = [
        Criterion.of(
            "title",
            (doc.core_properties.title or "").strip().lower() == "people review 2026"
            or any(p.text.strip().lower() == "people review 2026" for p in doc.paragraphs[:3]),
            "the document is not titled 'People Review 2026'",
        )
    ]
    table = by_head.get(tuple(HEAD))
    if table is None:
        out.append(Criterion("department table", False, f"no table with the header {HEAD}"))
    else:
        bad = []
        for code, got in zip(DEPTS, table[1:] + [[]] * len(DEPTS), strict=False):
            name, want = department_row(world, code)
            ok = (
                len(got) >= 9
                and got[0].lower() == name.lower()
                and all(
                    # counts and the (whole-dollar) lowest and highest salaries exact, the average
                    # rounded to whole dollars
                    number(g) is not None and abs(number(g) - w) <= (0.5 + 1e-9 if i == 5 else 0)
                    for i, (g, w) in enumerate(zip(got[1:9], want, strict=True))
                )
            )
            if not ok:
                bad.append(f"{name}: {got} (expected {[round(w) for w in want]})")
        if len(table) - 1 != len(DEPTS):
            bad.append(f"{len(table) - 1} rows instead of {len(DEPTS)}")
        out.append(Criterion.of("department table", not bad, "; ".join(bad)))
    promo = by_head.get(tuple(PROMO_HEAD))
    want = promotions(world)
    got = promo[1:] if promo else []
    out.append(
        Criterion.of(
            "promotions table",
            promo is not None
            and len(got) == len(want)
            and all(
                [v.lower() for v in g[:4]] == [str(v).lower() for v in w[:4]]
                and number(g[4]) is not None
                and number(g[4]) == w[4]
                for g, w in zip(got, want, strict=True)
            ),
            f"promotions table should list {[w[0] for w in want]} in order; it lists {[g[0] for g in got]}",
        )
    )
    director = world.rows("mail_contact", title="HR Director")[0]["email"].lower()
    sent = world.sent_mail()
    mailed = [
        m
        for m in sent
        if director in m["to_addrs"].split(", ")
        and m["subject"].strip().lower() == "people review 2026"
        and "People_Review_2026.docx" in {a.removeprefix("./") for a in json.loads(m["attachments"])}
        and world.sent_as_final(m["id"], "People_Review_2026.docx")
    ]
    out.append(
        Criterion.of(
            "mail to the HR Director",
            bool(mailed),
            f"no mail to {director} titled 'People review 2026' with the document (as it is now) attached",
        )
    )
    out.append(nothing_else_changed(others_changed(world)))
    out.append(no_one_else_mailed(world, MAILED))
    return out
