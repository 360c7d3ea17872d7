"""Bad-input errors: every problem names its file and line (SPEC §12)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Problem:
    file: str
    line: int | None
    message: str

    def __str__(self) -> str:
        # One line per problem, whatever the file name or message holds (a newline in a path or a
        # key); an empty name (`mseval tasks new ''`) is shown as '' so the line still names it.
        file = _one_line(self.file) or "''"
        where = f"{file}:{self.line}" if self.line else file
        return f"{where}: {_one_line(self.message)}"


def _one_line(text: str) -> str:
    return text.replace("\r", "\\r").replace("\n", "\\n")


class InputError(Exception):
    """One or more problems in files given to mseval; the CLI prints one line each, exit 2."""

    def __init__(self, problems: list[Problem]):
        self.problems = problems
        super().__init__("\n".join(str(p) for p in problems))

    @classmethod
    def one(cls, file: str | Path, line: int | None, message: str) -> InputError:
        return cls([Problem(str(file), line, message)])
