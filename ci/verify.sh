#!/bin/sh
# git-intent's verify mode: fetch the team's records and attestations, then fail unless every commit of the
# pull request whose note credits agent lines carries an attestation that holds, signed by a key the base
# branch's allowed-signers file lists. Run by action.yml (`mode: verify`); tests/attest/test_ci_verify.py
# runs it against a bare remote.
#
# Environment:
#   INTENT_BASE             the pull request's base commit (or branch); the range starts at its merge base
#   INTENT_HEAD             the pull request's head commit (default HEAD)
#   INTENT_REMOTE           the remote to fetch records from (default origin)
#   INTENT_FORK             the clone URL of the fork the pull request comes from (empty for a pull request
#                           from this repository): its attestations are fetched too
#   INTENT_ALLOWED_SIGNERS  the allowed-signers file's path in the repository (default .github/allowed_signers),
#                           read from the base commit: a pull request cannot allow its own key
set -eu

: "${INTENT_BASE:?INTENT_BASE must name the pull request base}"
head=${INTENT_HEAD:-HEAD}
remote=${INTENT_REMOTE:-origin}
signers=${INTENT_ALLOWED_SIGNERS:-.github/allowed_signers}

git intent fetch "$remote"
if [ -n "${INTENT_FORK:-}" ]; then
    git intent fetch "$INTENT_FORK"  # the contributor's attestations live in their fork
fi
base=$(git merge-base "$INTENT_BASE" "$head")
allowed=$(mktemp)
trap 'rm -f "$allowed"' EXIT
if ! git show "$base:$signers" > "$allowed" 2>/dev/null; then
    echo "git-intent: the base commit ${base} has no $signers; add one (ssh-keygen(1), ALLOWED SIGNERS)." >&2
    exit 1
fi
git intent verify "$base..$head" --allowed-signers "$allowed"
