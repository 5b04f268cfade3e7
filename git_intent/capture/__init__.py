"""Capture: the hooks, the queue and worker, recording a commit, rewrites, backfill and repair."""

# The git hooks git-intent installs a shim for: install.HOOKS, then install.LANDED_HOOKS. Here, with no
# import, so the hooks' entry and the CLI's `hook` command name them without loading the hook module.
SHIMS = ("post-commit", "post-rewrite", "post-merge", "post-checkout")
