"""Other tools' records read as sources: Entire checkpoints, git-ai notes, Aider commits."""
