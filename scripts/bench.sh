#!/usr/bin/env bash
# Usage: scripts/bench.sh [-m] [runs]
#
# Compares lathe's grep tool with ripgrep, and its glob tool with fd and
# rg --files, on the same generated tree (see tools/internal/gentree), and
# prints for each case the medians of both sides' CPU time, wall time and
# peak memory, and their ratios. The tree is the small layout's 20,000
# files (142 MB), or with -m the monorepo's 500,000 (about 4.5 GB, with
# its .gitignore files at every level and three files of 20 to 40 MB;
# generating it takes several minutes). It is built once, kept in
# $LATHE_BENCH_TREE (default /tmp/lathe-bench/tree, or
# /tmp/lathe-bench/monorepo with -m) and reused while its generator
# parameters do not change; LATHE_BENCH_FILES sets another size. runs
# (default 10) is how many times each side runs a case. A tool that is not
# installed is skipped, with a note.
#
# Fairness: each side runs as a process, interleaved round by round with
# the order swapped every other round, so that both see the same load;
# the load average is printed with each table. lathe's process is
# scripts/toolrun, which opens the tree as a workspace and makes one call
# of the tool, through the same Prepare and Run as a model's call, and
# nothing else: its peak memory is the Go runtime's and the call's, as
# rg's is rg's. Its CPU time counts the process's start and the opening of
# the workspace, which a call in a session does not pay; the call column
# and its ratio are the CPU time of the call alone, as toolrun measured
# it, against the other's whole process. Both search
# hidden files, skip .git, honour .gitignore files (nested ones and
# .git/info/exclude) and, for grep, skip binary files; the cache is warm
# (each side runs once before timing). rg's file globs are given as a
# type (--type-add, -t), not with -g, which would search files a
# .gitignore excludes by name (*.local.ts) when the glob matches them. rg
# writes its matches to a file;
# lathe keeps at most 200 of them. CPU time is user and system time, the
# process's threads and children included, and peak memory the maximum
# resident set size, both from wait4 (scripts/runstat).
set -euo pipefail

layout=small
if [ "${1:-}" = -m ]; then
	layout=monorepo
	shift
fi
runs=${1:-10}
cd "$(dirname "$0")/.."
if [ $layout = monorepo ]; then
	tree=${LATHE_BENCH_TREE:-/tmp/lathe-bench/monorepo}
	export LATHE_BENCH_FILES=${LATHE_BENCH_FILES:-500000}
	under=apps
else
	tree=${LATHE_BENCH_TREE:-/tmp/lathe-bench/tree}
	export LATHE_BENCH_FILES=${LATHE_BENCH_FILES:-20000} # benchFiles in tools/bench_test.go
	under=web/src
fi
export LATHE_BENCH_TREE=$tree LATHE_BENCH_LAYOUT=$layout
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# Cases: name|grep's arguments|rg's arguments... They mirror grepBenchCases
# and globBenchCases in tools/bench_test.go: keep the lists in step.
grep_cases=(
	'literal|{"pattern":"ErrNotFound"}|-e|ErrNotFound'
	'regexp|{"pattern":"func \\(s \\*Server\\) handle\\w+Token"}|-e|func \(s \*Server\) handle\w+Token'
	'ignorecase|{"pattern":"todo","ignore_case":true}|-i|-e|todo'
	'charclass|{"pattern":"[A-Z]{4}\\("}|-e|[A-Z]{4}\('
	'noliteral|{"pattern":"[A-Z][a-z]{2,}[0-9]{3}"}|-e|[A-Z][a-z]{2,}[0-9]{3}'
	'include|{"pattern":"TODO","include":"*.ts"}|--type-add|inc:*.ts|-t|inc|-e|TODO'
)
# glob cases: name|glob's arguments|fd pattern|rg --files glob|directory
glob_cases=(
	'all-go|{"pattern":"**/*.go"}|**/*.go|*.go|.'
	"under-dir|{\"pattern\":\"**/*.ts\",\"path\":\"$under\"}|*.ts|*.ts|$under"
	'all-md|{"pattern":"**/*.md"}|**/*.md|*.md|.'
)

fd=$(command -v fdfind || command -v fd || true)
have() {
	if ! command -v "$1" >/dev/null; then
		echo "$1 is not installed: skipping its comparisons ($2)"
		return 1
	fi
}
have_rg=true have_fd=true
have rg 'apt-get install ripgrep' || have_rg=false
[ -n "$fd" ] || { echo "fd is not installed: skipping its comparisons (apt-get install fd-find)"; have_fd=false; }

echo "building toolrun and the tree in $tree (once)..."
go build -o "$out/toolrun" ./scripts/toolrun
go build -o "$out/runstat" ./scripts/runstat
go run ./tools/internal/gentree/cmd -files "$LATHE_BENCH_FILES" -layout $layout "$tree" >/dev/null

# measure FILE CMD...: runs CMD in the tree, output to $out/last, and
# appends "wall_us cpu_us peak_kb call_us" to FILE, call_us being the CPU
# time of the call toolrun printed (0 for the other side).
measure() {
	local file=$1 call
	shift
	(cd "$tree" && "$out/runstat" -o "$out/stat" "$@" >"$out/last" 2>&1 || true) # rg exits 1 on no match
	call=$(sed -n 's/.*; call: \([0-9]*\) us of CPU$/\1/p' "$out/last" | tail -1)
	echo "$(cat "$out/stat") ${call:-0}" >>"$file"
}

# median FILE COLUMN prints the median of a column of numbers.
median() { awk -v c="$2" '{ print $c }' "$1" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf (b > 0 ? "%.2f" : "-"), a / b }'; }

# compare NAME CMD1 -- CMD2: times both interleaved, then prints a row
# with the medians and the ratios of the first to the second.
compare() {
	local name=$1 a=() b=()
	shift
	while [ "$1" != -- ]; do a+=("$1"); shift; done
	shift
	b=("$@")
	rm -f "$out/a" "$out/b"
	measure /dev/null "${a[@]}" # warm-up
	cp "$out/last" "$out/a.out"
	measure /dev/null "${b[@]}"
	cp "$out/last" "$out/b.out"
	for ((i = 0; i < runs; i++)); do
		if ((i % 2 == 0)); then
			measure "$out/a" "${a[@]}"
			measure "$out/b" "${b[@]}"
		else
			measure "$out/b" "${b[@]}"
			measure "$out/a" "${a[@]}"
		fi
	done
	local awall bwall acpu bcpu akb bkb call
	awall=$(median "$out/a" 1) bwall=$(median "$out/b" 1)
	acpu=$(median "$out/a" 2) bcpu=$(median "$out/b" 2)
	akb=$(median "$out/a" 3) bkb=$(median "$out/b" 3)
	call=$(median "$out/a" 4)
	printf '%-16s %6s %6s %6s %6s %5s  %6s %6s %5s  %5s %5s %5s  %s\n' "$name" \
		"$((acpu / 1000))" "$((call / 1000))" "$((bcpu / 1000))" "$(ratio "$acpu" "$bcpu")" "$(ratio "$call" "$bcpu")" \
		"$((awall / 1000))" "$((bwall / 1000))" "$(ratio "$awall" "$bwall")" \
		"$((akb / 1024))" "$((bkb / 1024))" "$(ratio "$akb" "$bkb")" \
		"$(sed -n 's/^\(.*\); call: .*/\1/p' "$out/a.out" | tail -1) / $(wc -l <"$out/b.out") lines"
}

header() {
	printf '\nlathe against %s (medians of %d runs; load average before: %s)\n' "$1" "$runs" "$(cut -d' ' -f1-3 /proc/loadavg)"
	printf '%-16s %27s %5s  %20s  %17s\n' '' 'CPU ms (lathe, its call, other)' ratios 'wall ms, ratio' 'MB, ratio'
	printf '%-16s %6s %6s %6s %6s %5s  %6s %6s %5s  %5s %5s %5s  %s\n' case lathe call other lathe call lathe other '' lathe other '' "lathe's result / the other's"
}

if $have_rg; then
	header rg
	for c in "${grep_cases[@]}"; do
		IFS='|' read -r -a parts <<<"$c"
		compare "grep/${parts[0]}" "$out/toolrun" . grep "${parts[1]}" -- \
			rg --no-require-git --hidden --no-ignore-global -g '!.git' -n --no-messages "${parts[@]:2}" .
	done
fi
if $have_fd; then
	header fd
	for c in "${glob_cases[@]}"; do
		IFS='|' read -r name args fdpat rgglob dir <<<"$c"
		compare "glob/$name" "$out/toolrun" . glob "$args" -- "$fd" -H -t f -E .git -g "$fdpat" "$dir"
	done
fi
if $have_rg; then
	header 'rg --files'
	for c in "${glob_cases[@]}"; do
		IFS='|' read -r name args fdpat rgglob dir <<<"$c"
		compare "glob/$name" "$out/toolrun" . glob "$args" -- \
			rg --files --no-require-git --hidden --no-ignore-global -g '!.git' --type-add "g:$rgglob" -t g "$dir"
	done
fi
