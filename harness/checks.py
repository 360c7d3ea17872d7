"""What a task's `check.py` works with: the final world, and criteria.

```python
from harness.checks import Criterion, World

def check(world: World) -> list[Criterion]:
    wb = world.xlsx("Enrollment.xlsx")
    return [Criterion.of("workbook exists", wb is not None, "Enrollment.xlsx is missing")]
```
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import text
from sqlalchemy.engine import Engine


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

    def path(self, relative: str) -> Path:
        return self.workspace / relative

    def read_text(self, relative: str) -> str | None:
        p = self.path(relative)
        return p.read_text(encoding="utf-8", errors="replace") if p.is_file() else None

    def xlsx(self, relative: str) -> Any:
        """The openpyxl workbook (values, not formulas' results), or None when missing/unreadable."""
        from openpyxl import load_workbook

        p = self.path(relative)
        try:
            return load_workbook(p) if p.is_file() else None
        except Exception:
            return None

    def docx(self, relative: str) -> Any:
        import docx

        p = self.path(relative)
        try:
            return docx.Document(str(p)) if p.is_file() else None
        except Exception:
            return None

    def pptx(self, relative: str) -> Any:
        from pptx import Presentation

        p = self.path(relative)
        try:
            return Presentation(str(p)) if p.is_file() else None
        except Exception:
            return None


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
