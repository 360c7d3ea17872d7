from mcp_servers.common.bootstrap import serve_main

serve_main("video")
