"""Which functions a PostgreSQL query calls, read from its text (a query, or the expressions of
its plan, which PostgreSQL prints as SQL).

The text is split into tokens as PostgreSQL's own lexer does (strings with '' and, in E'...',
backslash escapes; "quoted" and U&"..." identifiers; nested /* */ comments; any non-ASCII
character is part of a name), so nothing that PostgreSQL reads as code can hide inside what
this reads as a string or a comment. A call is a name (`f`, `s.f`, `"f"`) followed by `(`,
except where SQL puts a name before `(` that is not a call:

- SQL keywords that take parentheses (`IN (`, `OVER (`, `EXISTS (`, `FILTER (WHERE`, ...);
- a type and its modifiers after `::` or `AS` (`::numeric(10, 2)`, `CAST(x AS varchar(20))`);
- a column list after an alias: `... AS t(a, b)` or `(SELECT ...) s(a)`;
- a common table expression's column list: `WITH r(n) AS (...)`.

Everything else counts as a call, so a name this cannot place is checked against the allow-list
and refused rather than let through. Calls written in SQL's own syntax come out under the
function's name where there is one (`EXTRACT(`, `SUBSTRING(`, `COALESCE(`); operators and casts
are not calls here (PostgreSQL's built-in ones only compute on their operands).
"""

from __future__ import annotations

from dataclasses import dataclass

from mcp_servers.common.tooling import ToolError

# SQL keywords that may stand right before '(' without calling a function.
NOT_CALLS = frozenset(
    """
    all and any array as asc between both by case cast cube desc distinct else escape except exists
    fetch filter first following for from group groups having ilike in intersect is join lateral
    leading like limit materialized next not null offset on only or order over partition preceding
    range recursive repeatable rollup row rows select sets similar some symmetric asymmetric then
    ties to trailing union using values variadic varying precision when where window with within
    zone
    """.split()
)

_SPACE = " \t\n\r\f\v"
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


@dataclass(frozen=True)
class Token:
    kind: str  # "name" (unquoted, lower-cased as PostgreSQL does), "quoted", "string", "number", "op"
    text: str


def _ident_start(c: str) -> bool:
    return c == "_" or (c.isalpha() if c.isascii() else True)  # PostgreSQL: any non-ASCII byte


def _ident_char(c: str) -> bool:
    return _ident_start(c) or c.isdigit() or c == "$"


def _end_of_quoted(sql: str, start: int, quote: str, backslash: bool) -> int:
    """The index just past the closing `quote` of the literal opened at `start`."""
    j, n = start + 1, len(sql)
    while j < n:
        # a backslash escape (E'...'), or a doubled quote standing for the quote itself
        if (backslash and sql[j] == "\\") or sql.startswith(quote * 2, j):
            j += 2
        elif sql[j] == quote:
            return j + 1
        else:
            j += 1
    raise ToolError(f"unterminated {quote}...{quote} in the query")


def _end_of_comment(sql: str, start: int) -> int:
    depth, j = 0, start
    while j < len(sql):
        if sql.startswith("/*", j):
            depth, j = depth + 1, j + 2
        elif sql.startswith("*/", j):
            depth, j = depth - 1, j + 2
            if depth == 0:
                return j
        else:
            j += 1
    raise ToolError("unterminated /* comment */ in the query")


def tokens(sql: str, backslash_escapes: bool = False) -> list[Token]:
    """`sql` as PostgreSQL's lexer splits it, without whitespace and comments. `backslash_escapes`
    is true when the server runs with standard_conforming_strings off ('...' then takes
    backslash escapes too)."""
    out: list[Token] = []
    i, n = 0, len(sql)
    while i < n:
        c = sql[i]
        if c in _SPACE:
            i += 1
        elif sql.startswith("--", i):
            end = sql.find("\n", i)
            i = n if end < 0 else end
        elif sql.startswith("/*", i):
            i = _end_of_comment(sql, i)
        elif c in "eE" and sql.startswith("'", i + 1):
            end = _end_of_quoted(sql, i + 1, "'", True)
            out.append(Token("string", sql[i:end]))
            i = end
        elif c in "uU" and sql.startswith("&", i + 1) and sql[i + 2 : i + 3] in ("'", '"'):
            quote = sql[i + 2]
            end = _end_of_quoted(sql, i + 2, quote, False)
            # A U&"..." name may spell itself with escapes: it never matches the allow-list.
            out.append(Token("string" if quote == "'" else "quoted", sql[i:end]))
            i = end
        elif c == "'":
            end = _end_of_quoted(sql, i, "'", backslash_escapes)
            out.append(Token("string", sql[i:end]))
            i = end
        elif c == '"':
            end = _end_of_quoted(sql, i, '"', False)
            out.append(Token("quoted", sql[i + 1 : end - 1].replace('""', '"')))
            i = end
        elif _ident_start(c):
            j = i + 1
            while j < n and _ident_char(sql[j]):
                j += 1
            out.append(Token("name", sql[i:j].translate(_ASCII_LOWER)))
            i = j
        elif c.isdigit() or (c == "." and sql[i + 1 : i + 2].isdigit()):
            j = i + 1
            while j < n and (sql[j].isdigit() or sql[j] == "."):
                j += 1
            out.append(Token("number", sql[i:j]))
            i = j
        elif sql.startswith("::", i):
            out.append(Token("op", "::"))
            i += 2
        else:
            out.append(Token("op", c))
            i += 1
    return out


def _is(tok: Token | None, kind: str, text: str) -> bool:
    return tok is not None and tok.kind == kind and tok.text == text


def _matching(toks: list[Token], open_at: int) -> int:
    """The index of the ')' closing the '(' at `open_at` (or len(toks) when unclosed)."""
    depth = 0
    for j in range(open_at, len(toks)):
        if _is(toks[j], "op", "("):
            depth += 1
        elif _is(toks[j], "op", ")"):
            depth -= 1
            if depth == 0:
                return j
    return len(toks)


def _cte_names(toks: list[Token]) -> set[int]:
    """Indexes of the names in `WITH [RECURSIVE] name [(columns)] AS [NOT] [MATERIALIZED] (...), ...`."""
    found: set[int] = set()
    for i, tok in enumerate(toks):
        if not _is(tok, "name", "with"):
            continue
        j = i + 2 if _is(toks[i + 1] if i + 1 < len(toks) else None, "name", "recursive") else i + 1
        while j < len(toks) and toks[j].kind in ("name", "quoted"):
            name_at = j
            if j + 1 < len(toks) and _is(toks[j + 1], "op", "("):
                j = _matching(toks, j + 1)
            j += 1
            if not (j < len(toks) and _is(toks[j], "name", "as")):
                break
            j += 1
            while j < len(toks) and toks[j].kind == "name" and toks[j].text in ("not", "materialized"):
                j += 1
            if not (j < len(toks) and _is(toks[j], "op", "(")):
                break
            found.add(name_at)
            j = _matching(toks, j) + 1
            if not (j < len(toks) and _is(toks[j], "op", ",")):
                break
            j += 1
    return found


def called_functions(sql: str, backslash_escapes: bool = False) -> list[tuple[str | None, str]]:
    """Every function `sql` calls by name, as (schema or None, name), in order of appearance."""
    toks = tokens(sql, backslash_escapes)
    ctes = _cte_names(toks)
    calls: list[tuple[str | None, str]] = []
    i = 0
    while i < len(toks):
        if toks[i].kind not in ("name", "quoted"):
            i += 1
            continue
        start, parts = i, [toks[i]]
        while i + 2 < len(toks) and _is(toks[i + 1], "op", ".") and toks[i + 2].kind in ("name", "quoted"):
            parts.append(toks[i + 2])
            i += 2
        i += 1
        if not (i < len(toks) and _is(toks[i], "op", "(")):
            continue
        before = toks[start - 1] if start > 0 else None
        if _is(before, "op", "::") or _is(before, "name", "as") or _is(before, "op", ")") or start in ctes:
            continue  # a type's modifiers, an alias's or a CTE's column list
        if _is(before, "op", "."):
            calls.append(("(expression)", parts[-1].text))  # (row).f(...): refused, not guessed at
            continue
        if len(parts) == 1 and parts[0].kind == "name" and parts[0].text in NOT_CALLS:
            continue
        schema = ".".join(p.text for p in parts[:-1]) or None
        calls.append((schema, parts[-1].text))
    return calls
