"""Entry point of the `mseval` command line (SPEC §10).

Exit codes: 0 success, 1 a run failed, 2 bad input (one line per problem, naming file and line).
"""

from __future__ import annotations

import sys

import typer

from harness.cli import evaluate

app = typer.Typer(
    name="mseval",
    help="Measure sub-agent delegation: run tasks on MCP servers, check the world, score against SA.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

evaluate.register(app)


def main() -> None:
    from contracts.errors import InputError

    try:
        app()
    except InputError as exc:
        for problem in exc.problems:
            print(problem, file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()
