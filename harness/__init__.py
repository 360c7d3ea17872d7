"""mseval's runtime: agents, delegation, budgets, models, MCP client, world, runner, store, CLI.

Import cost matters (`mseval --help` must start in under half a second), so this package's
`__init__` imports nothing; import the module you need.
"""

__version__ = "0.1.0"
