#!/bin/sh
# git-intent's pull-request comment: fetch the team's records, review the pull request's range
# as Markdown, and create or update one comment on the pull request with `gh`; optionally fail the check
# when too few added lines are recorded. Run by action.yml (the composite GitHub Action at the repository
# root); tests/share/test_ci_action.py runs it with a stub `gh` on PATH.
#
# Environment:
#   INTENT_BASE          the pull request's base commit (or branch); the range starts at its merge base with HEAD
#   INTENT_HEAD          the pull request's head commit (default HEAD)
#   INTENT_PR            the pull request's number
#   GITHUB_REPOSITORY    owner/name, as GitHub Actions sets it
#   INTENT_REMOTE        the remote to fetch records from (default origin)
#   INTENT_MODEL         a litellm model string for session summaries (default: none, --offline)
#   INTENT_MIN_COVERAGE  when set, `git intent audit --min-coverage` fails the step below it (after commenting)
#   INTENT_FORK          the clone URL of the fork the pull request comes from (empty for a pull request from
#                        this repository): its records are fetched too, which needs only read access
#   INTENT_ANNOTATE      "true": `git intent audit --annotate github` marks the agent lines without evidence and
#                        the unrecorded lines beside the diff (at most INTENT_MAX_ANNOTATIONS, default 10: what
#                        GitHub shows of one step's warnings)
#   GH_TOKEN             the token gh uses (the workflow's github.token)
#   INTENT_BOT_LOGIN     the login GH_TOKEN comments as (default: `gh api user`'s, else github-actions[bot])
#   GITHUB_STEP_SUMMARY  where the review goes when a fork's pull request gives a token that cannot comment
set -eu

: "${INTENT_BASE:?INTENT_BASE must name the pull request base}"
: "${INTENT_PR:?INTENT_PR must be the pull request number}"
: "${GITHUB_REPOSITORY:?GITHUB_REPOSITORY must be owner/name}"
head=${INTENT_HEAD:-HEAD}
remote=${INTENT_REMOTE:-origin}
marker='<!-- git-intent review -->'

git intent fetch "$remote"
if [ -n "${INTENT_FORK:-}" ]; then
    git intent fetch "$INTENT_FORK"  # the contributor's records live in their fork
fi
base=$(git merge-base "$INTENT_BASE" "$head")
range="$base..$head"

body=$(mktemp)
trap 'rm -f "$body"' EXIT
if [ -n "${INTENT_MODEL:-}" ]; then
    summary="--model=$INTENT_MODEL"
else
    summary="--offline"
fi
{
    printf '%s\n' "$marker"
    git intent review "$range" --format markdown "$summary"
} > "$body"

# Who this token comments as: only a comment it wrote is ever edited, since anyone can post one that starts
# with the marker. `gh api user` answers for a person's or an app user's token; the workflow's GITHUB_TOKEN
# cannot read /user, and GitHub shows its comments as github-actions[bot]'s.
me=${INTENT_BOT_LOGIN:-}
if [ -z "$me" ]; then
    me=$(gh api user --jq .login 2>/dev/null || true)
    [ -n "$me" ] || me='github-actions[bot]'
fi
case ${me%\[bot\]} in
    '' | *[!A-Za-z0-9-]*)
        echo "git-intent: '$me' is not a GitHub login; set INTENT_BOT_LOGIN to the login the token comments as." >&2
        exit 1 ;;
esac

# One comment per pull request: this login's that starts with the marker is edited, else one is created.
# (`|| return 1`: `set -e` does not apply inside a function called as a condition.)
comment() {
    existing=$(gh api "repos/$GITHUB_REPOSITORY/issues/$INTENT_PR/comments" --paginate \
        --jq ".[] | select(.user.login == \"$me\" and (.body | startswith(\"$marker\"))) | .id" | head -n 1)
    if [ -n "$existing" ]; then
        gh api --method PATCH "repos/$GITHUB_REPOSITORY/issues/comments/$existing" -F "body=@$body" > /dev/null || return 1
        echo "git-intent: updated comment $existing on pull request #$INTENT_PR."
    else
        gh api --method POST "repos/$GITHUB_REPOSITORY/issues/$INTENT_PR/comments" -F "body=@$body" > /dev/null || return 1
        echo "git-intent: commented on pull request #$INTENT_PR."
    fi
}
if [ -z "${INTENT_FORK:-}" ]; then
    comment
elif ! comment; then
    # GitHub gives a fork's pull request a read-only token: the review goes to the job's summary instead.
    if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
        cat "$body" >> "$GITHUB_STEP_SUMMARY"
        echo "git-intent: this token cannot comment on pull request #$INTENT_PR from a fork; the review is in the job summary."
    else
        echo "git-intent: this token cannot comment on pull request #$INTENT_PR from a fork; the review:"
        cat "$body"
    fi
fi

set --
if [ -n "${INTENT_MIN_COVERAGE:-}" ]; then
    set -- "$@" --min-coverage "$INTENT_MIN_COVERAGE"
fi
if [ "${INTENT_ANNOTATE:-false}" = true ]; then
    set -- "$@" --annotate github --max-annotations "${INTENT_MAX_ANNOTATIONS:-10}"
fi
if [ $# -gt 0 ]; then
    git intent audit "$range" "$@"
fi
