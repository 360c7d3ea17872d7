"""Pagination as the real systems do it: a page number, a page size, and the totals."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeVar

from sqlalchemy import func, select
from sqlmodel import Session

from mcp_servers.common.tooling import ToolError, fields

MAX_PAGE_SIZE = 50
T = TypeVar("T")


def paginate(session: Session, stmt: Any, page: int, page_size: int, render: Any = None) -> dict[str, Any]:
    """Run `stmt` for one page; `render` turns each row into a dict (default: the row's columns in
    declaration order)."""
    if page < 1:
        raise ToolError("page starts at 1")
    if not 1 <= page_size <= MAX_PAGE_SIZE:
        raise ToolError(f"page_size must be between 1 and {MAX_PAGE_SIZE}")
    total = session.execute(select(func.count()).select_from(stmt.order_by(None).subquery())).scalar_one()
    pages = max(1, -(-total // page_size))
    # A page past the last is empty; its offset is not asked for (a huge one overflows SQLite).
    rows = (
        session.execute(stmt.limit(page_size).offset((page - 1) * page_size)).all() if page <= pages else []
    )
    render = render or (lambda row: fields(row[0]))
    return {"page": page, "pages": pages, "total": total, "items": [render(r) for r in rows]}


def page_window(items: Sequence[T], page: int, page_size: int) -> tuple[list[T], dict[str, int]]:
    """One page of a list ranked or filtered in Python, and its totals (the same keys as `paginate`)."""
    if page < 1:
        raise ToolError("page starts at 1")
    if page_size < 1:
        raise ToolError("page_size must be at least 1")
    window = list(items[(page - 1) * page_size : page * page_size])
    return window, {"total": len(items), "page": page, "pages": max(1, -(-len(items) // page_size))}
