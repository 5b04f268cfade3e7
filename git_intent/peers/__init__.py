"""Other tools' records, read: Entire checkpoints, git-ai notes, and the sessions a commit names itself (its
trailers, those records, Aider's commit lines). Capture reads them while recording; `interop` imports them."""
