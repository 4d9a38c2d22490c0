#!/usr/bin/env bash
# Usage: scripts/tui-cpu.sh [-b BINARY]... [FPS...]
#
# Measures what lathe's TUI itself costs, as whole-process CPU time read
# from /proc, in tmux (100x32) against the fake Ollama server:
#   idle      the TUI waiting for a prompt, over 20 seconds (% of a core);
#   per token a generated 12 KB markdown answer (mdgen, ~4,300 tokens)
#             streamed at 200 tokens a second (fakeollama -pace 5ms), from
#             the prompt's Enter to the end of the answer, divided by the
#             tokens; printed beside the markdown renderer alone
#             (BenchmarkStreamToken/incremental in ui/markdown, every token rendered) and their ratio;
#   client    the floor under it: the official Ollama client receiving the
#             same stream and doing nothing with it (scripts/streamfloor),
#             measured after each run, and what lathe adds to it.
# Each FPS (default: the default tui.fps, then 30 and 60) is run with
# [tui] fps set to it. With -b, each BINARY (a lathe built elsewhere, say
# from the code before a change) is measured instead of this tree's, one
# after the other for each FPS, so that runs compared in the same load
# interleave; a row then ends with the binary's path. Needs tmux.
set -euo pipefail

command -v tmux >/dev/null || { echo "tui-cpu: tmux is not installed" >&2; exit 1; }
cd "$(dirname "$0")/.."
work=$(mktemp -d)
session="lathe-cpu-$$"
cleanup() {
	tmux kill-session -t "$session" 2>/dev/null || true
	[ -n "${fake:-}" ] && kill "$fake" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT
bins=()
while [ $# -gt 0 ] && [ "$1" = -b ]; do
	[ $# -ge 2 ] || { echo "tui-cpu: -b needs a binary" >&2; exit 2; }
	bins+=("$(realpath "$2")")
	shift 2
done
fpss=("$@")
[ ${#fpss[@]} -gt 0 ] || fpss=(default 30 60)

if [ ${#bins[@]} -eq 0 ]; then
	go build -o "$work/lathe" .
	bins=("$work/lathe")
	label=false
else
	label=true
fi
go build -o "$work/fakeollama" ./scripts/fakeollama
go build -o "$work/streamfloor" ./scripts/streamfloor
tokens=$(go run ./scripts/mdscript 12000 2>&1 >"$work/script.json")
tick=$(getconf CLK_TCK)
md_ns=$(go test -run '^$' -bench '^BenchmarkStreamToken$/^incremental$' -benchtime 3x ./ui/markdown/ |
	awk '{ for (i = 2; i <= NF; i++) if ($i == "ns/token") { s += $(i - 1); n++ } } END { if (n) printf "%d", s / n }')

cpu() { awk '{ print $14 + $15 }' "/proc/$1/stat"; } # utime + stime, in ticks
screen() { tmux capture-pane -t "$session" -p; }
wait_for() { # wait_for PRESENT|ABSENT TEXT SECONDS
	for _ in $(seq $(($3 * 10))); do
		if screen | grep -qF -- "$2"; then [ "$1" = PRESENT ] && return 0; else [ "$1" = ABSENT ] && return 0; fi
		sleep 0.1
	done
	echo "tui-cpu: timed out waiting for \"$2\" to be $1" >&2
	screen >&2
	exit 1
}

start_fake() {
	rm -f "$work/addr"
	"$work/fakeollama" -pace 5ms -addr-file "$work/addr" "$work/script.json" >"$work/fake.log" 2>&1 &
	fake=$!
	for _ in $(seq 50); do [ -s "$work/addr" ] && break; sleep 0.1; done
}
stop_fake() {
	kill "$fake"
	wait "$fake" 2>/dev/null || true
	fake=
}

printf '%-8s %12s %14s %14s %14s %15s %7s %9s\n' fps 'idle (core)' 'CPU per token' 'client alone' 'lathe adds' 'markdown alone' ratio 'peak RSS'
for fps in "${fpss[@]}"; do
	for bin in "${bins[@]}"; do
		rm -rf "$work/state" "$work/data" "$work/config" "$work/project"
		mkdir -p "$work/project" "$work/config/lathe"
		[ "$fps" = default ] || printf '[tui]\nfps = %d\n' "$fps" >"$work/config/lathe/config.toml"
		start_fake
		tmux new-session -d -s "$session" -x 100 -y 32 \
			"cd '$work/project' && OLLAMA_HOST=$(cat "$work/addr") XDG_STATE_HOME='$work/state' XDG_DATA_HOME='$work/data' XDG_CONFIG_HOME='$work/config' LATHE_MODEL= HOME='$work' exec '$bin'"
		wait_for PRESENT "Ask for a change" 10
		sleep 2
		pid=$(tmux list-panes -t "$session" -F '#{pane_pid}')
		a=$(cpu "$pid")
		sleep 20
		b=$(cpu "$pid")
		idle=$(awk -v t="$((b - a))" -v hz="$tick" 'BEGIN { printf "%.2f%%", t / hz / 20 * 100 }')
		tmux send-keys -t "$session" "write the overview" Enter
		a=$(cpu "$pid")
		wait_for PRESENT "esc interrupt" 10
		wait_for ABSENT "esc interrupt" 120
		b=$(cpu "$pid")
		peak=$(awk '/^VmHWM/ { printf "%d MB", $2 / 1024 }' "/proc/$pid/status")
		per=$(awk -v t="$((b - a))" -v hz="$tick" -v n="$tokens" 'BEGIN { printf "%.3f", t / hz / n * 1000 }')
		tmux kill-session -t "$session"
		stop_fake
		start_fake
		floor=$("$work/streamfloor" "$(cat "$work/addr")")
		stop_fake
		printf '%-8s %12s %11s ms %11s ms %11s ms %12s ms %6sx %9s' "$fps" "$idle" "$per" "$floor" \
			"$(awk -v p="$per" -v f="$floor" 'BEGIN { printf "%.3f", p - f }')" \
			"$(awk -v ns="$md_ns" 'BEGIN { printf "%.3f", ns / 1e6 }')" \
			"$(awk -v p="$per" -v ns="$md_ns" 'BEGIN { printf "%.2f", p / (ns / 1e6) }')" "$peak"
		if $label; then printf '  %s\n' "$bin"; else printf '\n'; fi
	done
done
echo "($tokens tokens; CPU per token counts everything the process did meanwhile)"
