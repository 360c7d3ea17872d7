"""Warehouse tables: a small star-ish enterprise warehouse over sales, HR and finance.

Dates are ISO strings (YYYY-MM-DD), so `substr(order_date, 1, 7)` gives the month on SQLite and
PostgreSQL alike; money is NUMERIC(14, 2). Fiscal years are calendar years; the general ledger
is posted per closed month (through 2026-10), while sales run to today, 2026-11-20.
"""

from __future__ import annotations

from decimal import Decimal

from sqlmodel import Field, SQLModel

TODAY = "2026-11-20"


def _money(description: str = "") -> Decimal:
    return Field(max_digits=14, decimal_places=2, description=description or None)


class WarehouseRegion(SQLModel, table=True):
    __tablename__ = "warehouse_regions"
    id: int | None = Field(default=None, primary_key=True)
    code: str = Field(unique=True, description="short code, e.g. NA-EAST")
    name: str
    country: str = Field(description="country of the regional office")


class WarehouseDepartment(SQLModel, table=True):
    __tablename__ = "warehouse_departments"
    id: int | None = Field(default=None, primary_key=True)
    code: str = Field(unique=True, description="e.g. SALES, ENG")
    name: str
    cost_center: str = Field(description="cost center code used in the general ledger, e.g. CC-100")
    head_employee_id: int | None = Field(default=None, description="warehouse_employees.id of the head")


class WarehouseEmployee(SQLModel, table=True):
    __tablename__ = "warehouse_employees"
    id: int | None = Field(default=None, primary_key=True)
    employee_number: str = Field(unique=True, description="e.g. E0042")
    name: str
    email: str
    department_id: int = Field(foreign_key="warehouse_departments.id", index=True)
    region_id: int = Field(foreign_key="warehouse_regions.id", description="office region")
    title: str
    manager_id: int | None = Field(default=None, description="warehouse_employees.id of the manager")
    hire_date: str
    termination_date: str | None = Field(default=None, description="set when status = 'terminated'")
    status: str = Field(description="active | terminated")
    employment_type: str = Field(description="full-time | part-time")


class WarehouseSalary(SQLModel, table=True):
    __tablename__ = "warehouse_salaries"
    id: int | None = Field(default=None, primary_key=True)
    employee_id: int = Field(foreign_key="warehouse_employees.id", index=True)
    effective_date: str = Field(description="the salary applies from this date until the next row's")
    annual_salary: Decimal = _money("gross annual salary in USD")
    bonus_target_pct: float = Field(description="target bonus as a percentage of salary")
    reason: str = Field(description="hire | annual-review | promotion")


class WarehouseProduct(SQLModel, table=True):
    __tablename__ = "warehouse_products"
    id: int | None = Field(default=None, primary_key=True)
    sku: str = Field(unique=True)
    name: str
    category: str = Field(description="Hardware | Software | Services")
    product_line: str
    list_price: Decimal = _money("current list price in USD")
    unit_cost: Decimal = _money("standard cost in USD")
    launched_on: str
    discontinued: bool = False


class WarehouseCustomer(SQLModel, table=True):
    __tablename__ = "warehouse_customers"
    id: int | None = Field(default=None, primary_key=True)
    account_number: str = Field(unique=True, description="e.g. C1007")
    name: str
    segment: str = Field(description="Enterprise | Mid-Market | SMB")
    industry: str
    region_id: int = Field(foreign_key="warehouse_regions.id", index=True)
    customer_since: str


class WarehouseSalesOrder(SQLModel, table=True):
    __tablename__ = "warehouse_sales_orders"
    id: int | None = Field(default=None, primary_key=True)
    order_number: str = Field(unique=True, description="e.g. SO-250001")
    order_date: str = Field(index=True)
    customer_id: int = Field(foreign_key="warehouse_customers.id", index=True)
    region_id: int = Field(foreign_key="warehouse_regions.id", index=True)
    sales_rep_id: int = Field(foreign_key="warehouse_employees.id", index=True)
    channel: str = Field(description="direct | partner | online")
    status: str = Field(description="open | closed | cancelled (cancelled orders earn no revenue)")


class WarehouseSalesLine(SQLModel, table=True):
    __tablename__ = "warehouse_sales_lines"
    id: int | None = Field(default=None, primary_key=True)
    order_id: int = Field(foreign_key="warehouse_sales_orders.id", index=True)
    line_number: int
    product_id: int = Field(foreign_key="warehouse_products.id", index=True)
    quantity: int
    unit_price: Decimal = _money("price charged per unit before discount")
    discount_pct: float = Field(description="0-100")
    line_total: Decimal = _money("quantity * unit_price * (1 - discount_pct/100), rounded to cents")


class WarehouseGlAccount(SQLModel, table=True):
    __tablename__ = "warehouse_gl_accounts"
    id: int | None = Field(default=None, primary_key=True)
    account_number: str = Field(unique=True, description="e.g. 4000")
    name: str
    account_type: str = Field(description="revenue | expense")
    category: str = Field(description="e.g. Revenue, Cost of sales, Personnel, Operating")


class WarehouseFiscalPeriod(SQLModel, table=True):
    __tablename__ = "warehouse_fiscal_periods"
    id: int | None = Field(default=None, primary_key=True)
    period: str = Field(unique=True, description="YYYY-MM")
    fiscal_year: int
    fiscal_quarter: int = Field(description="1-4")
    start_date: str
    end_date: str
    status: str = Field(description="closed (posted to the ledger) | open")


class WarehouseGlEntry(SQLModel, table=True):
    __tablename__ = "warehouse_gl_entries"
    id: int | None = Field(default=None, primary_key=True)
    entry_date: str = Field(description="last day of the period")
    period: str = Field(index=True, description="YYYY-MM, see warehouse_fiscal_periods")
    fiscal_year: int = Field(index=True)
    account_id: int = Field(foreign_key="warehouse_gl_accounts.id", index=True)
    department_id: int = Field(foreign_key="warehouse_departments.id", index=True)
    region_id: int | None = Field(
        default=None,
        foreign_key="warehouse_regions.id",
        description="set on revenue and cost-of-sales entries",
    )
    amount: Decimal = _money("positive; the account type says whether it is revenue or expense")
    source: str = Field(description="sales-subledger | payroll | accounts-payable | fixed-assets")
    description: str


class WarehouseBudget(SQLModel, table=True):
    __tablename__ = "warehouse_budgets"
    id: int | None = Field(default=None, primary_key=True)
    fiscal_year: int = Field(index=True)
    fiscal_quarter: int = Field(description="1-4")
    department_id: int = Field(foreign_key="warehouse_departments.id", index=True)
    account_id: int = Field(foreign_key="warehouse_gl_accounts.id", index=True)
    amount: Decimal = _money("budgeted amount for the quarter")


TABLES = (
    WarehouseRegion,
    WarehouseDepartment,
    WarehouseEmployee,
    WarehouseSalary,
    WarehouseProduct,
    WarehouseCustomer,
    WarehouseSalesOrder,
    WarehouseSalesLine,
    WarehouseGlAccount,
    WarehouseFiscalPeriod,
    WarehouseGlEntry,
    WarehouseBudget,
)

TABLE_DOCS = {
    "warehouse_regions": "Sales regions; customers, orders and employees belong to one.",
    "warehouse_departments": "Departments (cost centers) of the company.",
    "warehouse_employees": "Every employee, current and former (status, termination_date).",
    "warehouse_salaries": "Salary history: one row per change; the current salary is the latest row "
    "with effective_date <= today.",
    "warehouse_products": "The product catalogue (hardware, software, services) with list price and cost.",
    "warehouse_customers": "Customer accounts (companies), by segment, industry and region.",
    "warehouse_sales_orders": "Sales order headers from 2025-01 to today; join lines for amounts.",
    "warehouse_sales_lines": "Order lines: product, quantity, price, discount and line_total.",
    "warehouse_gl_accounts": "General-ledger accounts (revenue and expense).",
    "warehouse_fiscal_periods": "Monthly fiscal periods (fiscal year = calendar year) and whether closed.",
    "warehouse_gl_entries": "Ledger postings per closed period, account and department; revenue and "
    "cost of sales also per region (from closed sales orders of the month).",
    "warehouse_budgets": "Quarterly budget per department and account for fiscal years 2025 and 2026.",
}
