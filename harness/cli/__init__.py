"""The `mseval` command line: one module per command group, registered in `main`.

Command modules import their heavy dependencies inside the command functions, so that
`mseval --help` stays fast (SPEC §11: ≤ 0.5 s). For the same reason typer is told not to load
rich for help and errors (`TYPER_USE_RICH=0`, set before typer is first imported); the tables
mseval prints still use rich, imported when they are printed.
"""

import os

os.environ.setdefault("TYPER_USE_RICH", "0")
