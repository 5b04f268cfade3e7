"""What the adapters share that is not an adapter: the tolerant JSON Lines reader (`jsonl`), patch and diff
parsing (`patches`), and the file writes a shell command shows (`shell`). Pure functions over transcript
text; no git, no SQLite."""
