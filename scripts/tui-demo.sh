#!/usr/bin/env bash
# Usage: scripts/tui-demo.sh [OUTDIR]
#
# Runs lathe's TUI in tmux (100x32) against the scripted fake Ollama server
# and captures the screen at each step, for reviewers: the first frame, the
# approval dialog for a write, and the streamed answer. The captures are
# printed and, with OUTDIR, also saved there as text files. Needs tmux.
set -euo pipefail

command -v tmux >/dev/null || { echo "tui-demo: tmux is not installed" >&2; exit 1; }
out=${1:-}
cd "$(dirname "$0")/.."
work=$(mktemp -d)
session="lathe-demo-$$"
cleanup() {
  tmux kill-session -t "$session" 2>/dev/null || true
  [ -n "${fake:-}" ] && kill "$fake" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

go build -o "$work/lathe" .
go build -o "$work/fakeollama" ./scripts/fakeollama
mkdir -p "$work/project" "$work/state"
cat >"$work/script.json" <<'JSON'
[
  {"thinking": "The user wants a greeting function. I'll look at the project, then add greet.go with a Greet function and a test.",
   "content": "I'll add a `Greet` function in a new file.",
   "tool_calls": [{"name": "list_dir", "arguments": {}},
                  {"name": "write_file", "arguments": {"path": "greet.go", "content": "package greet\n\n// Greet returns a greeting for name.\nfunc Greet(name string) string {\n\treturn \"Hello, \" + name + \"!\"\n}\n"}}]},
  {"content": "Added **greet.go**:\n\n```go\nfunc Greet(name string) string {\n\treturn \"Hello, \" + name + \"!\"\n}\n```\n\n- `Greet(\"Ada\")` returns `Hello, Ada!`\n- next: a table test in `greet_test.go`\n"}
]
JSON
"$work/fakeollama" -addr-file "$work/addr" "$work/script.json" >"$work/fake.log" 2>&1 &
fake=$!
for _ in $(seq 50); do [ -s "$work/addr" ] && break; sleep 0.1; done

tmux new-session -d -s "$session" -x 100 -y 32 \
  "cd '$work/project' && OLLAMA_HOST=$(cat "$work/addr") XDG_STATE_HOME='$work/state' XDG_DATA_HOME='$work/data' XDG_CONFIG_HOME='$work/config' LATHE_MODEL= HOME='$work' '$work/lathe'"

# waitfor TEXT: wait until the screen shows TEXT (10 s at most).
waitfor() {
  for _ in $(seq 100); do
    tmux capture-pane -t "$session" -p | grep -qF "$1" && return 0
    sleep 0.1
  done
  echo "tui-demo: the screen never showed \"$1\":" >&2
  tmux capture-pane -t "$session" -p >&2
  exit 1
}

# capture NAME: print the screen under a heading, and save it in OUTDIR.
capture() {
  echo "===== $1"
  tmux capture-pane -t "$session" -p | tee ${out:+"$out/$1.txt"}
}

[ -n "$out" ] && mkdir -p "$out"
waitfor "for commands"
capture 1-first-frame
tmux send-keys -t "$session" "add a greeting function" Enter
waitfor "Allow write_file to change greet.go?"
capture 2-approval
tmux send-keys -t "$session" y
waitfor "next: a table test"
capture 3-answer
tmux send-keys -t "$session" C-c
echo "===== greet.go written by lathe"
cat "$work/project/greet.go"
