"""The `mseval` command line: one module per command group, registered in `main`.

Command modules import their heavy dependencies inside the command functions, so that
`mseval --help` stays fast.
"""
