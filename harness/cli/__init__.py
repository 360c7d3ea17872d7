"""The `mseval` command line: one module per command group, registered in `main`.

Command modules import their heavy dependencies inside the command functions, so that
`mseval --help` stays fast (SPEC §11: ≤ 0.5 s). For the same reason typer is told not to load
rich for help and errors (`TYPER_USE_RICH=0`, set before typer is first imported); the tables
mseval prints still use rich, imported when they are printed.

numpy's OpenBLAS runs on one thread (`OPENBLAS_NUM_THREADS=1`, unless set): scoring's only
matrix products are small (the bootstrap's resamples × tasks), and after each one OpenBLAS's
worker thread spun on the other core for about 0.1 s, so `mseval score` on 10,000 episodes used
3.2 s of CPU in 2.3 s, with the same output as on one thread.
"""

import os

os.environ.setdefault("TYPER_USE_RICH", "0")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # before numpy is first imported
