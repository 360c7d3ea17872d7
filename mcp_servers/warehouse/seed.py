"""Deterministic warehouse data: ~160 employees with salary history, ~150 customers, ~1,150 sales
orders with ~2,500 lines (2025-01 to 2026-11-20), and a general ledger and budgets that agree with
them (revenue and cost of sales from closed orders, payroll from salaries).

Rows are inserted without ids, in id order, so ids are 1..n on every backend and database
sequences stay in step (writes made later by anyone get fresh ids).
"""

from __future__ import annotations

import random
from collections import defaultdict
from datetime import date, timedelta
from typing import Any

from sqlalchemy import insert
from sqlmodel import Session, SQLModel

from mcp_servers.common.names import people
from mcp_servers.warehouse import catalog
from mcp_servers.warehouse.schema import (
    TODAY,
    WarehouseBudget,
    WarehouseCustomer,
    WarehouseDepartment,
    WarehouseEmployee,
    WarehouseFiscalPeriod,
    WarehouseGlAccount,
    WarehouseGlEntry,
    WarehouseProduct,
    WarehouseRegion,
    WarehouseSalary,
    WarehouseSalesLine,
    WarehouseSalesOrder,
)

FIRST_MONTH = date(2025, 1, 1)
LAST_CLOSED = "2026-10"
Row = dict[str, Any]
# Rows set apart from what the generator draws (after its draws, so every other row stays as it
# was), so the tasks' conditions have something to exclude:
# - a top customer's Q3 2026 order that was cancelled ("closed orders only");
CANCELLED_ORDERS = {"SO-2601059"}
# - an order booked by another region's sales team than the customer's own region ("by the
#   order's region"): UKI customer Keystone Health's order through EMEA-C;
BOOKED_IN = {"SO-2600851": "EMEA-C"}
# - a promotion approved for next year ("current salary = latest row effective on or before
#   today", "promotions effective in 2026"): (employee number, effective date, rise).
FUTURE_RAISES = [("E0097", "2027-01-01", 0.10)]


def _insert(session: Session, model: type[SQLModel], rows: list[Row]) -> None:
    if rows:
        session.connection().execute(insert(model), rows)


def _months() -> list[date]:
    out, d = [], FIRST_MONTH
    while d <= date.fromisoformat(TODAY):
        out.append(d)
        d = date(d.year + d.month // 12, d.month % 12 + 1, 1)
    return out


def _month_end(d: date) -> date:
    return date(d.year + d.month // 12, d.month % 12 + 1, 1) - timedelta(days=1)


def _employees(rng: random.Random) -> tuple[list[Row], list[Row], list[Row]]:
    """Employees (head first per department, CEO = 1), department rows, salary history."""
    names = people(200, seed=2025, domain="corp.example")
    employees: list[Row] = []
    salaries: list[Row] = []
    departments: list[Row] = []
    today = date.fromisoformat(TODAY)

    def add(
        dept: int, region: int, title: str, band: tuple[int, int], manager: int | None, senior: bool
    ) -> int:
        name, email = names[len(employees)]
        hired = (
            date(rng.randint(2014, 2020), rng.randint(1, 12), rng.randint(1, 28))
            if senior
            else (date(2016, 1, 4) + timedelta(days=rng.randint(0, (today - date(2016, 1, 4)).days - 20)))
        )
        terminated = None
        if not senior and hired < date(2025, 6, 1) and rng.random() < 0.1:
            terminated = date(2025, 1, 15) + timedelta(days=rng.randint(0, 660))
        employees.append({
            "employee_number": f"E{len(employees) + 1:04d}", "name": name, "email": email,
            "department_id": dept, "region_id": region, "title": title, "manager_id": manager,
            "hire_date": hired.isoformat(), "termination_date": terminated and terminated.isoformat(),
            "status": "terminated" if terminated else "active",
            "employment_type": "part-time" if not senior and rng.random() < 0.06 else "full-time",
        })  # fmt: skip
        emp_id = len(employees)
        pay = rng.randint(*band) // 500 * 500 * (1.0 - 0.012 * max(0, 2024 - hired.year))
        bonus = 20.0 if senior else rng.choice([0.0, 5.0, 8.0, 10.0])
        salaries.append({"employee_id": emp_id, "effective_date": hired.isoformat(),
                         "annual_salary": round(pay, -2), "bonus_target_pct": bonus, "reason": "hire"})  # fmt: skip
        for year in (2024, 2025, 2026):
            review = date(year, 4, 1)
            if hired < review - timedelta(days=90) and (terminated is None or terminated > review):
                promoted = rng.random() < 0.07
                pay *= rng.uniform(1.08, 1.14) if promoted else rng.uniform(1.015, 1.055)
                salaries.append({"employee_id": emp_id, "effective_date": review.isoformat(),
                                 "annual_salary": round(pay, -2), "bonus_target_pct": bonus,
                                 "reason": "promotion" if promoted else "annual-review"})  # fmt: skip
        return emp_id

    for code, name, cc, *_rest in catalog.DEPARTMENTS:
        departments.append({"code": code, "name": name, "cost_center": cc, "head_employee_id": None})
    ceo = add(1, 1, catalog.DEPARTMENTS[0][4], catalog.DEPARTMENTS[0][5], None, True)
    heads = {1: ceo}
    for dept_id, (code, _name, _cc, n, head_title, head_band, titles) in enumerate(catalog.DEPARTMENTS, 1):
        head = heads.get(dept_id) or add(dept_id, 1, head_title, head_band, ceo, True)
        heads[dept_id] = head
        if code == "SALES":
            for region_id in range(1, len(catalog.REGIONS) + 1):
                lead = add(dept_id, region_id, "Regional Sales Manager", (135000, 160000), head, True)
                for _ in range(n // len(catalog.REGIONS) - 1):
                    add(dept_id, region_id, "Account Executive", (82000, 118000), lead, False)
            continue
        for i in range(n - 1):
            title, band = titles[i] if code == "EXEC" else rng.choice(titles)
            region_id = 1 if rng.random() < 0.6 else rng.choice([2, 4, 5, 7])
            add(dept_id, region_id, title, band, head, False)
    for dept_id, head in heads.items():
        departments[dept_id - 1]["head_employee_id"] = head
    for number, effective, rise in FUTURE_RAISES:
        emp_id = next(i for i, e in enumerate(employees, 1) if e["employee_number"] == number)
        last = max((r for r in salaries if r["employee_id"] == emp_id), key=lambda r: r["effective_date"])
        salaries.append(last | {"effective_date": effective, "annual_salary": round(last["annual_salary"] * (1 + rise), -2),
                                "reason": "promotion"})  # fmt: skip
    return employees, departments, salaries


def _salary_at(history: list[tuple[str, float]], day: str) -> float:
    current = history[0][1]
    for effective, amount in history:
        if effective <= day:
            current = amount
    return current


def seed(session: Session) -> None:
    """Fill the warehouse tables (same rows on every call)."""
    rng = random.Random(7312026)
    today = date.fromisoformat(TODAY)
    months = _months()
    _insert(session, WarehouseRegion, [{"code": c, "name": n, "country": k} for c, n, k in catalog.REGIONS])
    employees, departments, salaries = _employees(rng)
    _insert(session, WarehouseDepartment, departments)
    _insert(session, WarehouseEmployee, employees)
    _insert(session, WarehouseSalary, salaries)

    products: list[Row] = [
        {"sku": sku, "name": name, "category": cat, "product_line": line, "list_price": price,
         "unit_cost": cost, "launched_on": launched, "discontinued": discontinued}
        for sku, name, cat, line, price, cost, launched, discontinued in catalog.PRODUCTS
    ]  # fmt: skip
    _insert(session, WarehouseProduct, products)

    combos = [(p, s) for p in catalog.CUSTOMER_PREFIXES for s in catalog.CUSTOMER_SUFFIXES]
    customers: list[Row] = []
    for prefix, (suffix, industry) in rng.sample(combos, 150):
        segment = rng.choices(["Enterprise", "Mid-Market", "SMB"], [20, 35, 45])[0]
        since = date(2018, 1, 1) + timedelta(days=rng.randint(0, (today - date(2018, 1, 1)).days - 60))
        customers.append({
            "account_number": f"C{1001 + len(customers)}", "name": f"{prefix} {suffix}", "segment": segment,
            "industry": industry, "region_id": rng.choices(range(1, 9), catalog.REGION_WEIGHTS)[0],
            "customer_since": since.isoformat(),
        })  # fmt: skip
    _insert(session, WarehouseCustomer, customers)

    reps: dict[int, list[int]] = defaultdict(list)
    for emp_id, e in enumerate(employees, 1):
        if e["title"] in ("Account Executive", "Regional Sales Manager"):
            reps[e["region_id"]].append(emp_id)
    orders: list[Row] = []
    lines: list[Row] = []
    # closed revenue and cost per (period, region, category), for the ledger
    revenue: dict[tuple[str, int, str], float] = defaultdict(float)
    cost: dict[tuple[str, int], float] = defaultdict(float)
    weights = {"Enterprise": 5.0, "Mid-Market": 2.0, "SMB": 1.0}
    for k, month in enumerate(months):
        last_day = min(_month_end(month), today)
        season = {1: 0.8, 8: 0.85, 10: 1.15, 11: 1.25, 12: 1.35}.get(month.month, 1.0)
        n = round(42 * (1 + 0.02 * k) * season * last_day.day / _month_end(month).day)
        for _ in range(n):
            day = month + timedelta(days=rng.randint(0, last_day.day - 1))
            iso = day.isoformat()
            eligible = [(i, c) for i, c in enumerate(customers, 1) if c["customer_since"] <= iso]
            cust_id, cust = rng.choices(eligible, [weights[c["segment"]] for _, c in eligible])[0]
            region = cust["region_id"]
            active = [r for r in reps[region] if employees[r - 1]["hire_date"] <= iso
                      and (employees[r - 1]["termination_date"] or "9999") > iso]  # fmt: skip
            recent = (today - day).days < 21
            status = (
                "open" if recent and rng.random() < 0.6 else "cancelled" if rng.random() < 0.04 else "closed"
            )
            channel = (
                "online"
                if cust["segment"] == "SMB" and rng.random() < 0.45
                else rng.choice(["direct", "direct", "partner"])
            )
            number = f"SO-{day.year % 100}{len(orders) + 1:05d}"
            rep = rng.choice(active)
            if number in CANCELLED_ORDERS:
                status = "cancelled"
            if number in BOOKED_IN:  # booked by that region's sales manager
                region = next(i for i, r in enumerate(catalog.REGIONS, 1) if r[0] == BOOKED_IN[number])
                rep = reps[region][0]
            orders.append({
                "order_number": number, "order_date": iso, "customer_id": cust_id, "region_id": region,
                "sales_rep_id": rep, "channel": channel, "status": status,
            })  # fmt: skip
            order_id = len(orders)
            sellable = [(i, p) for i, p in enumerate(products, 1) if p["launched_on"] <= iso
                        and not (p["discontinued"] and day.year >= 2026)]  # fmt: skip
            big = {"Enterprise": 4.0, "Mid-Market": 2.0, "SMB": 1.0}[cust["segment"]]
            picked = rng.sample(sellable, rng.randint(1, 3 if big < 4 else 4))
            for line_no, (prod_id, prod) in enumerate(picked, 1):
                qty = max(1, round(rng.randint(*catalog.QUANTITY[prod["category"]]) * big / 2))
                price = prod["list_price"] if day.year >= 2026 else round(prod["list_price"] * 0.95, 2)
                discount = float(rng.choice([0, 0, 0, 5, 10, 15] if big < 4 else [5, 10, 15, 20]))
                total = round(qty * price * (1 - discount / 100), 2)
                lines.append({"order_id": order_id, "line_number": line_no, "product_id": prod_id,
                              "quantity": qty, "unit_price": price, "discount_pct": discount, "line_total": total})  # fmt: skip
                if status == "closed":
                    revenue[(iso[:7], region, prod["category"])] += total
                    cost[(iso[:7], region)] += qty * prod["unit_cost"]
    _insert(session, WarehouseSalesOrder, orders)
    _insert(session, WarehouseSalesLine, lines)
    _ledger(session, rng, months, employees, salaries, revenue, cost)


def _ledger(
    session: Session,
    rng: random.Random,
    months: list[date],
    employees: list[Row],
    salaries: list[Row],
    revenue: dict[tuple[str, int, str], float],
    cost: dict[tuple[str, int], float],
) -> None:
    accounts = {number: i for i, (number, *_rest) in enumerate(catalog.ACCOUNTS, 1)}
    _insert(session, WarehouseGlAccount, [
        {"account_number": a, "name": n, "account_type": t, "category": c} for a, n, t, c in catalog.ACCOUNTS
    ])  # fmt: skip
    periods = [*months, date(2026, 12, 1)]
    _insert(session, WarehouseFiscalPeriod, [
        {"period": m.isoformat()[:7], "fiscal_year": m.year, "fiscal_quarter": (m.month - 1) // 3 + 1,
         "start_date": m.isoformat(), "end_date": _month_end(m).isoformat(),
         "status": "closed" if m.isoformat()[:7] <= LAST_CLOSED else "open"} for m in periods
    ])  # fmt: skip
    dept = {code: i for i, (code, *_rest) in enumerate(catalog.DEPARTMENTS, 1)}
    history: dict[int, list[tuple[str, float]]] = defaultdict(list)
    for s in salaries:
        history[s["employee_id"]].append((s["effective_date"], s["annual_salary"]))
    entries: list[Row] = []
    # actual per (year, quarter, department, account), for the budgets
    actual: dict[tuple[int, int, int, int], float] = defaultdict(float)

    def post(month: date, account: str, department: int, amount: float, source: str, text: str,
             region: int | None = None) -> None:  # fmt: skip
        period = month.isoformat()[:7]
        amount = round(amount, 2)
        entries.append({
            "entry_date": _month_end(month).isoformat(), "period": period, "fiscal_year": month.year,
            "account_id": accounts[account], "department_id": department, "region_id": region,
            "amount": amount, "source": source, "description": f"{text} {period}",
        })  # fmt: skip
        actual[(month.year, (month.month - 1) // 3 + 1, department, accounts[account])] += amount

    for month in months:
        period = month.isoformat()[:7]
        if period > LAST_CLOSED:
            break
        for region in range(1, len(catalog.REGIONS) + 1):
            code = catalog.REGIONS[region - 1][0]
            for category, account in (("Hardware", "4000"), ("Software", "4100"), ("Services", "4200")):
                if amount := revenue.get((period, region, category)):
                    post(
                        month,
                        account,
                        dept["SALES"],
                        amount,
                        "sales-subledger",
                        f"{category} revenue {code}",
                        region,
                    )
            if amount := cost.get((period, region)):
                post(month, "5000", dept["OPS"], amount, "sales-subledger", f"Cost of sales {code}", region)
        first, last = month.isoformat(), _month_end(month).isoformat()
        payroll: dict[int, float] = defaultdict(float)
        for emp_id, e in enumerate(employees, 1):
            if e["hire_date"] <= last and (e["termination_date"] or "9999") >= first:
                payroll[e["department_id"]] += _salary_at(history[emp_id], max(first, e["hire_date"])) / 12
        for department, amount in sorted(payroll.items()):
            post(month, "6000", department, amount, "payroll", "Payroll")
            post(month, "6100", department, amount * 0.21, "payroll", "Payroll taxes and benefits")
        for account, code, base in catalog.OPEX:
            season = 1.3 if month.month in (10, 11) and account in ("6500", "6300") else 1.0
            season *= 2.2 if account == "6600" and code == "FIN" and month.month == 3 else 1.0
            flat = account in ("6200", "6800")
            amount = (
                base * (1.04 if flat and month.year == 2026 else 1.0)
                if flat
                else base * season * rng.uniform(0.8, 1.2)
            )
            source = "fixed-assets" if account == "6800" else "accounts-payable"
            post(month, account, dept[code], amount, source, catalog.ACCOUNT_NAMES[account])
    _insert(session, WarehouseGlEntry, entries)

    budgets: list[Row] = []
    for department, account_id in sorted({(d, a) for (_y, _q, d, a) in actual}):
        for year in (2025, 2026):
            for quarter in (1, 2, 3, 4):
                if (year, quarter) == (2026, 4):  # not fully posted yet: planned from last year's Q4
                    base = actual.get((2025, 4, department, account_id), 0.0) * 1.08
                else:
                    base = actual.get((year, quarter, department, account_id), 0.0)
                budgets.append({"fiscal_year": year, "fiscal_quarter": quarter, "department_id": department,
                                "account_id": account_id, "amount": round(base * rng.uniform(0.9, 1.1), -2)})  # fmt: skip
    _insert(session, WarehouseBudget, budgets)
