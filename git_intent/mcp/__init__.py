"""git-intent for agents: the MCP server (`server`, needs the `mcp` extra), the JSON each tool answers
(`tools`), and registering the server in an agent's own configuration (`register`).

Nothing here imports the MCP SDK at package import: only `git intent mcp` loads `server`.
"""
