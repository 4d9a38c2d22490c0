#!/usr/bin/env bash
# Usage: scripts/smoke-ollama.sh [MODEL]
#
# Runs lathe's two seed tasks with the real binary against a real Ollama
# server (OLLAMA_HOST, default 127.0.0.1:11434) and checks the files they
# must leave behind:
#   1. "create test.txt containing Hello World"
#   2. "create an authentication system with JWT and password hashing"
# and a plan-mode run that must print a plan and change nothing.
# MODEL defaults to lathe's own choice (the first installed model with tool
# support). Exits 0 with a message when no server answers, 1 when a task
# fails.
set -euo pipefail

model=${1:-}
host=${OLLAMA_HOST:-127.0.0.1:11434}
case $host in
  http://* | https://*) base=$host ;;
  *:*) base=http://$host ;;
  *) base=http://$host:11434 ;;
esac

if ! curl -sf --max-time 3 "$base/api/version" >/dev/null; then
  echo "smoke-ollama: no Ollama server answers at $base; skipped"
  exit 0
fi

cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/lathe" .

args=()
[ -n "$model" ] && args+=(-m "$model")
failed=0

task() { # task NAME DIR PROMPT [EXTRA ARGS...]
  local name=$1 dir=$2 prompt=$3
  shift 3
  echo "== $name"
  local start=$SECONDS
  if ! "$work/lathe" -C "$dir" "${args[@]}" "$@" -p "$prompt"; then
    echo "FAIL $name: lathe exited with an error"
    failed=1
    return 1
  fi
  echo "-- $name: $((SECONDS - start))s"
}

check() { # check NAME DESCRIPTION COMMAND...
  local name=$1 what=$2
  shift 2
  if "$@"; then
    echo "ok   $name: $what"
  else
    echo "FAIL $name: $what"
    failed=1
  fi
}

mkdir "$work/hello"
if task hello "$work/hello" "create test.txt containing Hello World" --yes; then
  check hello "test.txt exists" test -f "$work/hello/test.txt"
  check hello "test.txt says Hello World" grep -q "Hello World" "$work/hello/test.txt"
fi

mkdir "$work/auth"
printf 'module example.com/app\n\ngo 1.26\n' >"$work/auth/go.mod"
if task auth "$work/auth" "create an authentication system with JWT and password hashing" --yes --max-turns 25; then
  sources=$(find "$work/auth" -type f ! -name go.mod ! -name go.sum | wc -l)
  check auth "several files were written ($sources)" test "$sources" -ge 2
  check auth "something handles JWTs" grep -rqi "jwt" "$work/auth"
  check auth "passwords are hashed" grep -rqiE "bcrypt|argon2|scrypt|pbkdf2" "$work/auth"
fi

mkdir "$work/plan"
printf 'package greet\n\nfunc Greet() string { return "hi" }\n' >"$work/plan/greet.go"
cp "$work/plan/greet.go" "$work/greet.go.orig"
plan_ok=0
task plan "$work/plan" "make Greet return hello instead of hi" --mode plan >"$work/plan.out" && plan_ok=1
cat "$work/plan.out" # stdout is the plan (task's own lines included)
if [ "$plan_ok" = 1 ]; then
  check plan "a numbered plan was printed" grep -q '^1\. ' "$work/plan.out"
  check plan "no file was changed" cmp -s "$work/plan/greet.go" "$work/greet.go.orig"
fi

exit "$failed"
