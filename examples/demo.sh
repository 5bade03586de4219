#!/usr/bin/env bash
# The seeds' check, against a running Sightline (./sightline): send the same image request twice
# and watch the overlap jump from ~0/Y to Y/Y (response header x-sightline-overlap, the engine's
# cached_tokens, and the router's "[ROUTING] … overlap=X/Y blocks" log line); then send a different
# image with the same text and watch it drop again.
# Usage: examples/demo.sh [BASE_URL] [MODEL]     (needs curl and base64)
# Exits non-zero when the overlap does not behave as described.
set -euo pipefail
BASE=${1:-http://localhost:8080}
MODEL=${2:-Qwen/Qwen2.5-VL-7B-Instruct}
HERE=$(cd "$(dirname "$0")" && pwd)
# A per-run system prompt in front keeps one run from finding the previous run's blocks.
RUN="$(date +%s)-$$"
AUTH=()
if [ -n "${SIGHTLINE_API_KEY:-}" ]; then AUTH=(-H "Authorization: Bearer $SIGHTLINE_API_KEY"); fi

body() { # image file, question
  printf '{"model":"%s","max_tokens":16,"messages":[{"role":"system","content":"You are a helpful assistant. Demo run %s."},{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/png;base64,%s"}},{"type":"text","text":"%s"}]}]}' \
    "$MODEL" "$RUN" "$(base64 -w0 "$1")" "$2"
}

send() { # label, image file, question -> prints a line, sets OVERLAP TOTAL
  local out headers payload
  out=$(body "$2" "$3" | curl -sS --max-time 60 -D - -o /dev/stdout "${AUTH[@]}" \
    -H 'Content-Type: application/json' --data-binary @- "$BASE/v1/chat/completions")
  headers=$(printf '%s' "$out" | tr -d '\r')
  local worker overlap cached
  worker=$(printf '%s\n' "$headers" | sed -n 's/^x-sightline-worker: *//Ip' | head -1)
  overlap=$(printf '%s\n' "$headers" | sed -n 's/^x-sightline-overlap: *//Ip' | head -1)
  cached=$(printf '%s' "$headers" | grep -o '"cached_tokens":[0-9]*' | head -1 | cut -d: -f2 || true)
  if [ -z "$overlap" ] || ! printf '%s' "$headers" | head -1 | grep -q ' 200'; then
    echo "$1: the request failed or was not routed; response was:" >&2
    printf '%s\n' "$out" >&2
    exit 1
  fi
  OVERLAP=${overlap%%/*}
  TOTAL=${overlap##*/}
  printf '%-28s worker=%-8s overlap=%-7s cached_tokens=%s\n' "$1" "$worker" "$overlap" "${cached:-?}"
  sleep 0.3 # let the worker's KV events reach the router
}

Q="Describe this picture in one sentence."
send "1. image A (cold)" "$HERE/checkerboard-448.png" "$Q"; first=$OVERLAP
send "2. image A again" "$HERE/checkerboard-448.png" "$Q"; second=$OVERLAP; total=$TOTAL
send "3. image B, same text" "$HERE/stripes-448.png" "$Q"; third=$OVERLAP

if [ "$second" -ne "$total" ] || [ "$second" -le "$first" ]; then
  echo "FAIL: the repeated image request should overlap fully (got $second/$total after $first)" >&2
  exit 1
fi
if [ "$third" -ge "$second" ]; then
  echo "FAIL: a different image should not match the cached one (got $third after $second)" >&2
  exit 1
fi
echo "OK: overlap rose to $second/$total for the repeated image and fell to $third for a different one."
