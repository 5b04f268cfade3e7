"""Other tools' records brought in and written out: `git intent import` (Entire, git-ai, Agent Trace,
SpecStory) and `git intent export --format agent-trace`. The readers of those records live in `peers`."""
