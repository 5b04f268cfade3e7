"""`python -m git_intent`: the command line, as the `git-intent` script runs it."""

from .cli import main

main()
