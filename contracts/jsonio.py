"""Read a JSON file given to mseval: every way it can be unreadable is one problem line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from contracts.errors import InputError
from contracts.textio import read_text


def read_json(path: Path) -> Any:
    """The parsed contents of `path`; `InputError` naming the file (and line) otherwise. A
    leading byte-order mark (as some editors write) is read past, as in profiles and exports."""
    file = str(path)
    text = read_text(path, "utf-8-sig")
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError.one(file, exc.lineno, f"invalid JSON: {exc.msg}") from None
    except RecursionError:
        raise InputError.one(file, None, "invalid JSON: nested too deeply") from None
    except ValueError as exc:  # a value Python refuses, e.g. an integer of over 4,300 digits
        raise InputError.one(file, None, f"invalid JSON: {exc}") from None
