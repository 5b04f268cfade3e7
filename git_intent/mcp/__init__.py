"""git-intent for agents: the MCP server (`server`, needs the `mcp` extra), the JSON each tool answers
(`tools`), and registering the server in an agent's own configuration (`register`).

Nothing here imports the MCP SDK at package import: only `git intent mcp` loads `server`.
"""

# The agents whose configuration `git intent install --agent` can register the server in. Here, not in
# `register`, so the CLI can offer the names without importing `register` on every command (issue 14).
AGENTS = ("claude-code", "codex", "gemini-cli", "cursor", "opencode")
