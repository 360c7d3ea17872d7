"""mseval's MCP servers: one package per server, each a real MCP server (official SDK).

Every server runs in-process (over the MCP in-memory transport), over stdio
(`python -m mcp_servers.<name> --db URL --workspace DIR`) and over streamable HTTP on
127.0.0.1 (`--http PORT`). `registry` names them; `common` holds what they share.
"""
