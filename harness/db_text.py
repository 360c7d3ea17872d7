"""How a database error or URL is told in one line: the driver's own first line, a password
masked."""

from __future__ import annotations

import re

from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import SQLAlchemyError


def first_line(exc: BaseException) -> str:
    """What `exc` says, in one line: a database error's own first line (the driver's), without
    SQLAlchemy's DETAIL, `[SQL: …]` and link; "" when it says nothing."""
    lines = str(getattr(exc, "orig", None) or exc).strip().splitlines()
    return lines[0].strip() if lines else ""


def error_reason(exc: BaseException) -> str:
    return first_line(exc) or type(exc).__name__


def shown(url: str | URL) -> str:
    """A database `url` as it may be printed: a server's password masked (`***`), also when
    given as a query parameter (`?password=…`, which libpq and the driver take as well)."""
    try:
        parsed = make_url(url)
    except (
        SQLAlchemyError,
        ValueError,
    ):  # not a URL SQLAlchemy reads (a port `abc`): masked as `//user:***@`
        return re.sub(r"(//[^/:@]*:)[^@]*@", r"\1***@", str(url))
    secret = [key for key in parsed.query if key.lower() == "password"]
    masked = parsed.update_query_dict(dict.fromkeys(secret, "***"))
    return masked.render_as_string(hide_password=True).replace("=%2A%2A%2A", "=***")
