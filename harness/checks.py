"""What a task's `check.py` works with: the final world, and criteria.

```python
from harness.checks import Criterion, World

def check(world: World) -> list[Criterion]:
    wb = world.xlsx("Enrollment.xlsx")
    return [Criterion.of("workbook exists", wb is not None, "Enrollment.xlsx is missing")]
```

`World.changes` compares the final world with the seed, so a check can say "nothing else was
changed" in one criterion instead of guarding each column it happens to think of.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Callable, Iterable, Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from decimal import Decimal
from functools import cache
from pathlib import Path
from typing import Any

from sqlalchemy import Table, and_, create_engine, or_, select, text
from sqlalchemy.engine import Engine
from sqlalchemy.pool import NullPool

# The largest file `World.read_text` reads; a larger one reads as missing.
MAX_TEXT_BYTES = 10_000_000

# What a task expects of a row that differs from the seed, given the row as seeded (None when the
# episode added it) and as it is now (None when removed): True (the row may be added, removed
# or changed at will), False (it may not differ), or the names of the columns that may change.
Allowance = Callable[[dict[str, Any] | None, dict[str, Any] | None], bool | Iterable[str]]


# `World.changes` allowances for a task that sends mail: the messages the user sends and their
# attachments are new rows (who gets them is checked on its own, `World.mailed_others`), and
# marking a message read is no damage.
def new_rows(column: str, values: AbstractSet[Any]) -> Allowance:
    """A `changes` allowance: rows the episode added whose `column` is one of `values`."""
    return lambda seeded, final: seeded is None and final is not None and final[column] in values


SENDING_MAIL: dict[str, Allowance] = {
    "mail_message": lambda seeded, final: seeded is None or {"is_read"},
    "mail_attachment": lambda seeded, final: seeded is None,
}


@dataclass(frozen=True)
class Criterion:
    name: str
    passed: bool
    message: str = ""

    @classmethod
    def of(cls, name: str, passed: bool, failure: str = "", success: str = "") -> Criterion:
        return cls(name, bool(passed), success if passed else failure)


class World:
    """Read access to the final state: database rows, workspace files and office documents."""

    def __init__(self, engine: Engine, workspace: Path) -> None:
        self.engine = engine
        self.workspace = workspace

    def rows(self, table: str, **where: Any) -> list[dict[str, Any]]:
        clause = " AND ".join(f'"{k}" = :{k}' for k in where)
        sql = f'SELECT * FROM "{table}"' + (f" WHERE {clause}" if clause else "")
        with self.engine.connect() as conn:
            return [dict(r._mapping) for r in conn.execute(text(sql), where)]

    def query(self, sql: str, **params: Any) -> list[dict[str, Any]]:
        with self.engine.connect() as conn:
            return [dict(r._mapping) for r in conn.execute(text(sql), params)]

    def sent_mail(self) -> list[dict[str, Any]]:
        """The `mail_message` rows the user (the agents) sent during the episode."""
        from mcp_servers.mail.schema import ME, NOW

        return self.query(
            "SELECT * FROM mail_message WHERE sender = :me AND sent_at >= :now ORDER BY id", me=ME, now=NOW
        )

    def ids_named(self, table: str, name: str, column: str = "title") -> set[int]:
        """The ids of the rows of `table` whose `column` is `name`, case and surrounding spaces
        aside: the rows a task asked the agents to create under that name."""
        sql = f'SELECT id FROM "{table}" WHERE lower(trim("{column}")) = lower(trim(:name))'
        return {r["id"] for r in self.query(sql, name=name)}

    def new_spreadsheet(self, title: str, shared_with: Iterable[str] | None = None) -> dict[str, Allowance]:
        """`changes` allowances for the cloud spreadsheet(s) the task creates under `title` (case
        and surrounding spaces aside): the spreadsheet, its sheets and cells are new rows, and so
        are its shares, with `shared_with` and me only (None: with anyone, checked elsewhere)."""
        from mcp_servers.mail.schema import ME  # the user the agents act for, in every scenario

        books = self.ids_named("sheets_spreadsheet", title)
        tabs = {r["id"] for r in self.rows("sheets_sheet") if r["spreadsheet_id"] in books}
        people = None if shared_with is None else {*shared_with, ME}

        def share(seeded: dict[str, Any] | None, final: dict[str, Any] | None) -> bool:
            return (
                seeded is None and final is not None and final["spreadsheet_id"] in books
                and (people is None or final["email"] in people)
            )  # fmt: skip

        return {
            "sheets_spreadsheet": new_rows("id", books),
            "sheets_sheet": new_rows("id", tabs),
            "sheets_cell": new_rows("sheet_id", tabs),
            "sheets_permission": share,
        }

    def mailed_others(self, expected: Iterable[str]) -> list[str]:
        """Recipients (To or Cc) of the mail the user sent other than the `expected` ones and the
        user (a copy to oneself reaches no one else)."""
        from mcp_servers.mail.schema import ME, sent_mail

        sent = {a for m in sent_mail(self.engine) for a in m.to_list() + m.cc_list()}
        return sorted(sent - set(expected) - {ME})

    def sent_attachment(self, message_id: int, name: str) -> bytes | None:
        """Attachment `name` of sent message `message_id` as it was when sent (the mail server
        keeps a copy), or None when the message has no such attachment."""
        from mcp_servers.mail.schema import sent_attachment

        return sent_attachment(self.engine, message_id, name)

    def sent_as_final(self, message_id: int, name: str) -> bool:
        """Whether attachment `name` of message `message_id` is the workspace file `name` as it
        is now: the checks read the final file, so what was sent must be that file (a document
        sent first and filled in afterwards is not)."""
        sent = self.sent_attachment(message_id, name)
        final = self.path(name.removeprefix("./"))
        return sent is not None and final.is_file() and final.read_bytes() == sent

    def changes(self, *scope: str, allow: Mapping[str, Allowance] | None = None) -> list[str]:
        """What differs from the seed in `scope` (table names; a server name stands for all its
        tables): one line per row added, removed or changed, rows matched by primary key, as
        `railway_booking 812: status 'confirmed' -> 'cancelled'`. `allow[table](seeded, final)`
        says what the task expects of a row that differs (see `Allowance`). The seed is the world
        before the task's `setup`, so rows a setup step changes must be allowed too."""
        out: list[str] = []
        differences = _Differences(self.engine)
        try:
            found = [(table, differences.of(table)) for table in _tables(scope)]
        finally:
            differences.close()
        for table, (keys, seeded, final) in found:
            expects = (allow or {}).get(table.name, lambda seeded, final: False)
            for key in sorted(keys if keys is not None else seeded.keys() | final.keys()):
                before, after = seeded.get(key), final.get(key)
                if before == after:
                    continue
                may = expects(before, after)
                if may is True:
                    continue
                name = f"{table.name} {', '.join(map(str, key))}"
                if before is None or after is None:
                    out.append(f"{name} {'added' if before is None else 'removed'}")
                    continue
                moved = [c for c in after if before[c] != after[c]]
                if set(moved) - set(may or ()):
                    out.append(f"{name}: " + ", ".join(f"{c} {before[c]!r} -> {after[c]!r}" for c in moved))
        return out

    def path(self, relative: str) -> Path:
        return self.workspace / relative

    def file(self, relative: str) -> Path | None:
        """The regular file `relative` names inside the workspace, links followed, or None: a
        missing file, a folder, a device, or a link that leads out of the workspace (the agent's
        link to a file of the host must not grade as the agent's work)."""
        from mcp_servers.common.tooling import ToolError
        from mcp_servers.common.workspace import resolve

        try:
            real = resolve(self.workspace, relative)
        except ToolError:
            return None
        return real if real.is_file() else None

    def read_text(self, relative: str) -> str | None:
        """The file's text (bad bytes replaced), or None when missing, out of the workspace, or
        larger than MAX_TEXT_BYTES (no answer of a task is that long; reading it would cost the
        scorer the memory)."""
        p = self.file(relative)
        if p is None or p.stat().st_size > MAX_TEXT_BYTES:
            return None
        return p.read_text(encoding="utf-8", errors="replace")

    def _office(self, relative: str, opener: Callable[[str], Any]) -> Any:
        """An office file opened by `opener`, or None when missing, out of the workspace, not
        one, or refused as the servers refuse it (a zip bomb, a part declaring a DTD)."""
        from mcp_servers.common.files import check_prologs, check_zip

        p = self.file(relative)
        if p is None:
            return None
        try:
            check_zip(p, relative)
            check_prologs(p)
            return opener(str(p))
        except Exception:
            return None

    def xlsx(self, relative: str) -> Any:
        """The openpyxl workbook, or None when missing/unreadable. Each formula cell holds what
        the formula computes, by the engine the excel server reads with (what the agent saw):
        a Total row written as `=SUM(B2:B10)` is its sum, not that text."""
        from openpyxl import load_workbook

        book = self._office(relative, load_workbook)
        if book is not None:
            _compute_workbook(book)
        return book

    def sheet_cells(self, sheet_id: int) -> dict[tuple[int, int], Any]:
        """A cloud sheet's cells, {(row, column): value} (1-based), each formula replaced by what
        it computes, as the sheets server's reads show it."""
        from mcp_servers.common.formula import compute_grid

        sheet = self.query("SELECT spreadsheet_id FROM sheets_sheet WHERE id = :id", id=sheet_id)
        if not sheet:
            return {}
        tabs = {
            t["title"]: t["id"]
            for t in self.query(
                "SELECT id, title FROM sheets_sheet WHERE spreadsheet_id = :book",
                book=sheet[0]["spreadsheet_id"],
            )
        }

        def load(title: str) -> dict[tuple[int, int], Any]:
            rows = self.rows("sheets_cell", sheet_id=tabs[title])
            return {(c["row_no"], c["col_no"]): json.loads(c["value"]) for c in rows}

        title = next(t for t, i in tabs.items() if i == sheet_id)
        cells = load(title)
        if not cells:
            return {}
        top, left = min(r for r, _ in cells), min(c for _, c in cells)
        bottom, right = max(r for r, _ in cells), max(c for _, c in cells)
        grid = [[cells.get((r, c)) for c in range(left, right + 1)] for r in range(top, bottom + 1)]
        compute_grid(grid, (title, top, left), tabs, load)
        return {
            (r, c): grid[r - top][c - left] for r in range(top, bottom + 1) for c in range(left, right + 1)
            if (r, c) in cells
        }  # fmt: skip

    def docx(self, relative: str) -> Any:
        import docx

        return self._office(relative, docx.Document)

    def pptx(self, relative: str) -> Any:
        from pptx import Presentation

        return self._office(relative, Presentation)


def nothing_else_changed(changed: list[str]) -> Criterion:
    """The criterion of every task that must leave the world otherwise as it was: `changed` is
    what `World.changes` reports beyond the task's allowances."""
    return Criterion.of("nothing else changed", not changed, f"unexpected changes: {changed[:5]}")


def no_one_else_mailed(world: World, expected: Iterable[str]) -> Criterion:
    """The criterion of every task that sends mail: no recipient beyond `expected`."""
    leaks = world.mailed_others(expected)
    return Criterion.of("no one else mailed", not leaks, f"mail also went to {leaks}")


def _compute_workbook(book: Any) -> None:
    """Replace, in place, every formula of an openpyxl workbook with the value it computes."""
    from mcp_servers.common.formula import compute_grid, is_formula, workbook_cells

    for ws in book.worksheets:
        if not any(is_formula(c.value) for row in ws.iter_rows() for c in row):
            continue
        top, left = ws.min_row, ws.min_column
        grid = [[c.value for c in row] for row in ws.iter_rows(min_row=top, min_col=left)]
        compute_grid(grid, (ws.title, top, left), book.sheetnames, lambda t: workbook_cells(book, t))
        for r, row in enumerate(ws.iter_rows(min_row=top, min_col=left)):
            for c, cell in enumerate(row):
                if is_formula(cell.value):
                    cell.value = grid[r][c]


# a figure said to fall is negative: 'down 6.64%', 'fell 2.7%', 'missed estimates by 2.7%'
DOWN = re.compile(
    r"\b(?:down|fell|fallen|falls?|dropped|drops?|declined?|declines|lost|loses|lower|slid|slipped|missed|"
    r"miss(?:es)?|below|short)\b(?:\s+(?!to\b|at\b)[a-z]+){0,3}\s+(?:by\s+)?$",
    re.I,
)


def signed_numbers(text: str) -> list[float]:
    """The numbers of a text with their signs: +34.22% is 34.22, -2.7% and −2.7% are -2.7, and so is
    2.7 after a word saying it fell ('down 2.7%'); 12,064.4 is 12064.4, never 12 and 64.4."""
    text = re.sub(r"(?<=\d),(?=\d{3}\b)", "", text).replace("\u2212", "-")
    out = []
    for m in re.finditer(r"(?<![\w.])([+-]?)(\d+(?:\.\d+)?)", text):
        x = float(m[2])
        out.append(-x if m[1] == "-" or (not m[1] and DOWN.search(text[: m.start()])) else x)
    return out


def close_enough(a: Any, b: float, tol: float = 0.005) -> bool:
    """`a` (a number, or text that reads as one) is within `tol` of `b`: |a − b| ≤ tol, an
    absolute tolerance. The default, half a cent, accepts a figure rounded to the cent and
    nothing else; give the tolerance the prompt's own rounding allows (0.05 for one decimal).
    Counts equal exactly, so `close_enough(count, n)` holds only for n itself."""
    try:
        x = float(a)
    except (TypeError, ValueError):
        return False
    return abs(x - b) <= tol


def _tables(scope: Iterable[str]) -> list[Table]:
    """The world tables named in `scope`, a server name standing for all of its tables."""
    from mcp_servers.common import registry

    out: list[Table] = []
    for name in scope:
        if name in registry.names():
            out += [model.__table__ for model in registry.spec(name).tables]  # type: ignore[attr-defined]
        elif (table := registry.table(name)) is not None:
            out.append(table)
        else:
            raise KeyError(f"{name!r} is neither a server nor a world table")
    return out


def _keyed(engine: Engine, table: Table, where: Any = None) -> dict[tuple[Any, ...], dict[str, Any]]:
    """The rows of `table` (those matching `where`) by primary key, values read through the
    column types and numbers as floats, so SQLite and PostgreSQL (Decimal for NUMERIC) give the
    same rows."""
    key = [c.name for c in table.primary_key.columns]
    query = select(table) if where is None else select(table).where(where)
    with engine.connect() as conn:
        rows = [dict(r._mapping) for r in conn.execute(query)]
    return {
        tuple(r[k] for k in key): {
            c: round(float(v), 9) if isinstance(v, float | Decimal) else v for c, v in r.items()
        }
        for r in rows
    }


class _Differences:
    """Which rows of a world's tables differ from the seed. A SQLite world is compared with its
    template inside SQLite (a join on the primary key, column by column, on the rows as stored),
    so an unchanged table of thousands of rows costs a check next to nothing, and only differing
    rows are read and typed. Otherwise (PostgreSQL, whose seed is read from the SQLite template
    and must be typed to compare) every row is read."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        world = engine.url.database if engine.dialect.name == "sqlite" else None
        self.conn: sqlite3.Connection | None = None
        if world and world != ":memory:" and not world.startswith("file:"):
            from mcp_servers.common.worldstate import sqlite_template

            self.template = str(sqlite_template())
            # URIs of the paths (a '#', '?' or '%' in a folder name would end a raw one)
            self.conn = sqlite3.connect(_read_only(world), uri=True)
            self.conn.execute("ATTACH DATABASE ? AS tpl", (_read_only(self.template),))

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()

    def of(
        self, table: Table
    ) -> tuple[
        set[tuple[Any, ...]] | None,
        dict[tuple[Any, ...], dict[str, Any]],
        dict[tuple[Any, ...], dict[str, Any]],
    ]:
        """(the primary keys of the rows that differ, those rows as seeded, and as they are now),
        or (None, every seeded row, every row now) where SQLite cannot tell."""
        if self.conn is None:
            return None, _seeded_rows(table.name), _keyed(self.engine, table)
        pk = [c.name for c in table.primary_key.columns]
        on = " AND ".join(f'm."{c}" = s."{c}"' for c in pk)
        differ = " OR ".join(f'm."{c.name}" IS NOT s."{c.name}"' for c in table.columns if c.name not in pk)
        keys_of = ", ".join(f'{{side}}."{c}"' for c in pk)
        name = table.name
        # rows added or changed, then rows removed
        diff = (
            f'SELECT {keys_of.format(side="m")} FROM main."{name}" m LEFT JOIN tpl."{name}" s ON {on} '
            f'WHERE s."{pk[0]}" IS NULL{f" OR {differ}" if differ else ""} '
            f'UNION SELECT {keys_of.format(side="s")} FROM tpl."{name}" s LEFT JOIN main."{name}" m ON {on} '
            f'WHERE m."{pk[0]}" IS NULL'
        )
        keys = {tuple(row) for row in self.conn.execute(diff)}
        if not keys:
            return keys, {}, {}
        if len(keys) > _MANY_KEYS:  # SQLite limits a statement's parameters: compare whole tables
            return None, _seeded_rows(table.name), _keyed(self.engine, table)
        seeded = _keyed(_template_engine(self.template), table, _with_keys(table, keys))
        final = _keyed(self.engine, table, _with_keys(table, keys))
        # the keys as typed (a date key is a date, not its stored text), as the rows are
        return seeded.keys() | final.keys(), seeded, final


def _read_only(path: str) -> str:
    """A SQLite URI opening the file at `path` read-only."""
    return Path(path).resolve().as_uri() + "?mode=ro"


@cache
def _template_engine(path: str) -> Engine:
    """A read-only engine on the template, one per process (its compiled queries are reused).
    Checks run in threads of their own: each use opens a connection of its own (NullPool). The
    pool SQLAlchemy picks for a URL without a file (a few connections shared by thread) closed
    one thread's connection under another's: "Cannot operate on a closed database"."""
    return create_engine(
        "sqlite://",
        creator=lambda: sqlite3.connect(_read_only(path), uri=True, check_same_thread=False),
        poolclass=NullPool,
    )


_MANY_KEYS = 400


def _with_keys(table: Table, keys: set[tuple[Any, ...]]) -> Any:
    """A WHERE clause for the rows of `table` with these primary keys (as stored)."""
    columns = [table.c[c.name] for c in table.primary_key.columns]
    if len(columns) == 1:
        return columns[0].in_([k[0] for k in keys])
    return or_(*(and_(*(col == v for col, v in zip(columns, k, strict=True))) for k in keys))


@cache
def _seeded_rows(table: str) -> dict[tuple[Any, ...], dict[str, Any]]:
    """The seeded rows of world table `table`, read (once) from the cached template database."""
    from mcp_servers.common.registry import table as world_table
    from mcp_servers.common.worldstate import sqlite_template

    found = world_table(table)
    assert found is not None, table
    return _keyed(_template_engine(str(sqlite_template())), found)
