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
        where = f"{self.file}:{self.line}" if self.line else self.file
        # One line per problem, whatever the message quotes (a key with a newline in it).
        message = self.message.replace("\r", "\\r").replace("\n", "\\n")
        return f"{where}: {message}"


class InputError(Exception):
    """One or more problems in files given to mseval; the CLI prints one line each, exit 2."""

    def __init__(self, problems: list[Problem]):
        self.problems = problems
        super().__init__("\n".join(str(p) for p in problems))

    @classmethod
    def one(cls, file: str | Path, line: int | None, message: str) -> InputError:
        return cls([Problem(str(file), line, message)])
