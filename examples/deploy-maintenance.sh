#!/usr/bin/env bash
# Opens and closes a Statusvane maintenance window around a deploy. Needs bash, curl, date, grep, sed and tr.
#
#   deploy-maintenance.sh start "<title>" [minutes]   opens a window from now for <minutes> (default 30) over the
#                                                     whole workspace; prints its id (and writes it to
#                                                     $STATUSVANE_MAINTENANCE_FILE when set)
#   deploy-maintenance.sh complete <id>               ends the window now (a no-op if it has already ended)
#
# Environment: STATUSVANE_API (base URL including /api/v1), STATUSVANE_TOKEN (a token whose role may manage
# status pages: owner or admin), optionally STATUSVANE_WORKSPACE (slug or id, for personal tokens) and
# STATUSVANE_MAINTENANCE_FILE. Any failure (missing settings, network error, non-2xx answer) exits non-zero with
# the reason on stderr, so the pipeline step fails loudly.
#
# The token never appears on a command line (where `ps` and /proc show it to every user of the machine): the
# headers go to curl as a config on its standard input (`curl -K -`), written by bash's builtin printf.
#
# Typical pipeline:
#   id=$(examples/deploy-maintenance.sh start "Deploying v2.3" 20)
#   ./deploy.sh
#   examples/deploy-maintenance.sh complete "$id"
set -euo pipefail

die() {
  printf 'deploy-maintenance: %s\n' "$*" >&2
  exit 1
}

usage() {
  die "usage: $0 start \"<title>\" [minutes] | $0 complete <id>"
}

[ -n "${STATUSVANE_API:-}" ] || die "STATUSVANE_API is not set (e.g. https://statusvane.example.com/api/v1)"
[ -n "${STATUSVANE_TOKEN:-}" ] || die "STATUSVANE_TOKEN is not set"
case "$STATUSVANE_TOKEN" in *[[:cntrl:]]*) die "STATUSVANE_TOKEN contains a control character" ;; esac
case "${STATUSVANE_WORKSPACE:-}" in *[[:cntrl:]]*) die "STATUSVANE_WORKSPACE contains a control character" ;; esac
command -v curl >/dev/null || die "curl is required"
api="${STATUSVANE_API%/}"

# Escapes a string for a JSON string literal: backslash, quote, and control characters.
json_string() {
  local s=$1
  s=${s//\\/\\\\}
  s=${s//\"/\\\"}
  s=${s//$'\n'/\\n}
  s=${s//$'\r'/\\r}
  s=${s//$'\t'/\\t}
  s=$(printf '%s' "$s" | tr -d '\000-\037')
  printf '"%s"' "$s"
}

# ISO 8601 UTC time of the Unix time $1 (GNU date, then BSD/macOS date).
utc_at() {
  date -u -d "@$1" '+%Y-%m-%dT%H:%M:%SZ' 2>/dev/null || date -u -r "$1" '+%Y-%m-%dT%H:%M:%SZ'
}

# Escapes a string for a double-quoted curl config value: backslash and quote. Values with control characters
# (a newline would start a new header or option) are refused by the caller.
config_string() {
  local s=$1
  s=${s//\\/\\\\}
  s=${s//\"/\\\"}
  printf '"%s"' "$s"
}

# curl's config, read from its standard input: the secret stays out of every process's argv.
curl_config() {
  printf 'header = %s\n' "$(config_string "Authorization: Bearer ${STATUSVANE_TOKEN}")"
  printf 'header = "Content-Type: application/json"\n'
  printf 'header = "Accept: application/json"\n'
  if [ -n "${STATUSVANE_WORKSPACE:-}" ]; then
    printf 'header = %s\n' "$(config_string "X-Statusvane-Workspace: ${STATUSVANE_WORKSPACE}")"
  fi
}

# request METHOD PATH BODY [extra curl args...]: prints the response body; dies on a transport error or non-2xx.
request() {
  local method=$1 path=$2 body=$3
  shift 3
  local out status
  out=$(curl_config | curl -sS --max-time 30 -K - "$@" -X "$method" --data "$body" -w '\n%{http_code}' "${api}${path}") ||
    die "$method ${api}${path} failed (curl exit $?)"
  status=${out##*$'\n'}
  out=${out%$'\n'*}
  case "$status" in
    2??) printf '%s' "$out" ;;
    *) die "$method ${api}${path} answered HTTP $status: $out" ;;
  esac
}

cmd=${1:-}
case "$cmd" in
  start)
    [ $# -ge 2 ] && [ $# -le 3 ] || usage
    title=$2
    minutes=${3:-30}
    [ -n "$title" ] || die "the title must not be empty"
    [[ "$minutes" =~ ^[0-9]{1,7}$ ]] && [ "$((10#$minutes))" -ge 1 ] || die "minutes must be a whole number from 1 to 9999999, got '$minutes'"
    minutes=$((10#$minutes)) # "08" is 8, not an octal error
    # The clock is read once: start and end come from the same second, so the window lasts exactly $minutes.
    now=$(date -u '+%s')
    body="{\"title\":$(json_string "$title"),\"startsAt\":\"$(utc_at "$now")\",\"endsAt\":\"$(utc_at $((now + minutes * 60)))\"}"
    # One Idempotency-Key for this start: curl's retries of a transient failure (timeout, 5xx, 429) resend the same
    # request with the same key, and the API replays the first window instead of opening a second one.
    key=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
    [[ "$key" =~ ^[0-9a-f]{32}$ ]] || die "could not read a random Idempotency-Key from /dev/urandom"
    response=$(request POST /maintenance "$body" -H "Idempotency-Key: $key" --retry 3 --retry-delay 2)
    id=$(printf '%s' "$response" | grep -o '"id":"[0-9a-fA-F-]\{36\}"' | head -n 1 | sed 's/.*:"\(.*\)"/\1/') || true
    [ -n "$id" ] || die "could not find the window id in the answer: $response"
    if [ -n "${STATUSVANE_MAINTENANCE_FILE:-}" ]; then
      printf '%s\n' "$id" >"$STATUSVANE_MAINTENANCE_FILE" || die "cannot write $STATUSVANE_MAINTENANCE_FILE"
    fi
    printf '%s\n' "$id"
    ;;
  complete)
    [ $# -eq 2 ] || usage
    id=$2
    [[ "$id" =~ ^[0-9a-fA-F-]{36}$ ]] || die "'$id' is not a maintenance window id"
    # Completing is idempotent (a completed window answers 200 unchanged), so transient failures are retried.
    request PATCH "/maintenance/$id" '{"status":"complete"}' --retry 3 --retry-delay 2 >/dev/null
    printf 'completed %s\n' "$id" >&2
    ;;
  *)
    usage
    ;;
esac
