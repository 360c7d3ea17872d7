"""Entry point of the `mseval` command line (SPEC §10).

Exit codes: 0 success, 1 a run failed, 2 bad input (one line per problem, naming file and line).
"""

from __future__ import annotations

import sys

import typer

from harness.cli import catalog_cmds, evaluate, profiles_cmd, run, runs_cmd, servers_cmd

app = typer.Typer(
    name="mseval",
    help="Measure sub-agent delegation: run tasks on MCP servers, check the world, score against SA.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    # Plain help: rendering it with rich costs ~0.25 s of start-up (SPEC §11: --help ≤ 0.5 s).
    rich_markup_mode=None,
)

run.register(app)
catalog_cmds.register(app)
profiles_cmd.register(app)
servers_cmd.register(app)
runs_cmd.register(app)
evaluate.register(app)


def main() -> None:
    import logging

    from typer import Abort
    from typer._click.exceptions import ClickException, NoArgsIsHelpError, UsageError

    from contracts.errors import InputError
    from harness.memory import limit_malloc_arenas

    limit_malloc_arenas()  # before any thread: a long run's memory is otherwise mostly arenas
    # Warnings and errors only: in-process MCP servers would otherwise configure INFO logging
    # (every tool error, and httpx every request, on stderr over the progress bar).
    logging.basicConfig(level=logging.WARNING)
    try:
        code = app(standalone_mode=False, prog_name="mseval")
    except InputError as exc:
        for problem in exc.problems:
            print(problem, file=sys.stderr)
        sys.exit(2)
    except NoArgsIsHelpError as exc:  # `mseval`, `mseval tasks`: the help, as before
        exc.show()
        sys.exit(exc.exit_code)
    except UsageError as exc:  # an unknown option, a missing value: bad input, one line too
        where = exc.ctx.command_path if exc.ctx is not None else "mseval"
        message = " ".join(exc.format_message().split())
        print(f"{where}: {message} (see {where} --help)", file=sys.stderr)
        sys.exit(exc.exit_code)
    except ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    except Abort:
        print("Aborted!", file=sys.stderr)
        sys.exit(1)
    sys.exit(code if isinstance(code, int) else 0)


if __name__ == "__main__":
    main()
