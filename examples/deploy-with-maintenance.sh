#!/usr/bin/env bash
# The deploy-maintenance flow on the statusvane CLI: a maintenance window over the components a deploy touches, open
# for the deploy and completed when it ends, however it ends. Run from a Statusvane checkout (`npx statusvane`), with
# STATUSVANE_URL (the service root, such as https://statusvane.example.com) and STATUSVANE_TOKEN (admin or owner).
#
#   examples/deploy-with-maintenance.sh "Deploying v2.3" ./deploy.sh [args...]
#
# COMPONENTS (comma-separated names or ids) are the components the window covers; ALL_COMPONENTS=1 instead covers the
# whole workspace (every monitor stops paging). One of them is required: the CLI refuses a window with neither.
# WINDOW (default 30m) bounds it should the deploy hang. (examples/deploy-maintenance.sh
# is the same flow in curl and bash, for machines without Node.)
set -euo pipefail

[ $# -ge 2 ] || { echo "usage: $0 \"<title>\" <deploy command> [args...]" >&2; exit 1; }
title=$1
shift

args=(maintenance start --title "$title" --for "${WINDOW:-30m}")
IFS=',' read -r -a components <<<"${COMPONENTS:-}"
for c in "${components[@]}"; do
  [ -n "$c" ] && args+=(--component "$c")
done
[ "${ALL_COMPONENTS:-}" = 1 ] && args+=(--all)

id=$(npx statusvane "${args[@]}")
echo "maintenance window $id open" >&2
# Completed whatever happens to the deploy: success, failure or Ctrl-C.
trap 'npx statusvane maintenance complete "$id" >&2' EXIT
"$@"
