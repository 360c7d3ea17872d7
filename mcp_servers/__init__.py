"""mseval's MCP servers: one package per server, each a real MCP server (official SDK).

Every server runs in-process (over the MCP in-memory transport), over stdio
(`python -m mcp_servers.<name> --db URL --workspace DIR`) and over streamable HTTP on
127.0.0.1 (`--http PORT`). `registry` names them; `common` holds what they share. A child
server that mseval starts ties its life to mseval's here, before anything heavy is imported
(`common/parentwatch.py`).
"""

from mcp_servers.common.parentwatch import exit_with_parent_from_the_start

# First, before a server's heavy imports: a child server ends with the mseval that started it.
exit_with_parent_from_the_start()
