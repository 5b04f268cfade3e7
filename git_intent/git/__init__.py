"""Git plumbing: the git CLI (repository, diffs, blame, notes) and in-process object reads through pygit2."""
