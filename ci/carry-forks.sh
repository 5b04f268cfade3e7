#!/bin/sh
# git-intent on a push to a branch (main, after "Squash and merge" or "Rebase and merge" of a pull request from a
# fork): fetch the records of each fork whose pull request the push merged, carry them onto the commits GitHub
# made (matched by patch id: `git intent fetch`), and push the records to the repository, so everyone who runs
# `git intent fetch` sees the contributor's sessions. Run by action.yml on `push` (the pull_request run has a
# read-only token for a fork's pull request and cannot push); tests/share/test_ci_forks.py runs it with a stub
# `gh` on PATH.
#
# Environment:
#   INTENT_BEFORE      the commit the branch was at before the push (github.event.before; empty or zeros for a new
#                      branch: only INTENT_AFTER is looked at)
#   INTENT_AFTER       the commit the branch is at now (github.event.after; default HEAD)
#   GITHUB_REPOSITORY  owner/name, as GitHub Actions sets it
#   INTENT_REMOTE      the remote to fetch records from and push them to (default origin)
#   GH_TOKEN           the token gh reads the pull requests with (the push uses git's own credentials, which
#                      actions/checkout sets up: the job needs `contents: write`)
#   GIT_INTENT_SHARE   `evidence` to push the evidence the contributors shared in their forks too (default: the
#                      clone's `intent.share`, notes)
set -eu

: "${GITHUB_REPOSITORY:?GITHUB_REPOSITORY must be owner/name}"
case $GITHUB_REPOSITORY in
    */*/* | /* | */ | *[!A-Za-z0-9._/-]*)
        echo "git-intent: '$GITHUB_REPOSITORY' is not owner/name." >&2
        exit 1 ;;
esac
after=${INTENT_AFTER:-HEAD}
before=${INTENT_BEFORE:-}
remote=${INTENT_REMOTE:-origin}

git intent fetch "$remote"

# The commits the push brought (first parents: what was merged, not the merged branches' own commits); at most
# 100, a push of more is not a pull request's merge.
case $before in
    '' | *[!0]*) ;;
    *) before= ;;
esac
if [ -n "$before" ] && git cat-file -e "$before^{commit}" 2>/dev/null; then
    commits=$(git rev-list --first-parent --max-count=100 "$before..$after")
else
    commits=$(git rev-parse --verify "$after^{commit}")
fi

# The pull requests GitHub associates with those commits whose head is in another repository (a fork).
forks=$(mktemp)
trap 'rm -f "$forks"' EXIT
for commit in $commits; do
    gh api "repos/$GITHUB_REPOSITORY/commits/$commit/pulls" \
        --jq ".[] | select(.head.repo != null and .head.repo.full_name != \"$GITHUB_REPOSITORY\")
              | \"\(.number) \(.head.repo.clone_url)\""
done | sort -u > "$forks"

while read -r number url; do
    # The pull request's commits as GitHub keeps them, should the fork's branch be gone already.
    git fetch --quiet --no-tags "$remote" "+refs/pull/$number/head:refs/pull/$number/head" ||
        echo "git-intent: refs/pull/$number/head could not be fetched from $remote." >&2
    if git intent fetch "$url"; then
        echo "git-intent: fetched the records of pull request #$number from $url."
    else
        echo "::warning title=git-intent::The records of pull request #$number could not be fetched from $url."
    fi
done < "$forks"

git intent push "$remote"
