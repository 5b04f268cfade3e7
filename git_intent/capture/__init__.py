"""Capture: the hooks, the queue and worker, recording a commit, rewrites, backfill and repair."""
