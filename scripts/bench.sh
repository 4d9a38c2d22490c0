#!/usr/bin/env bash
# Usage: scripts/bench.sh [runs]
#
# Compares lathe's grep tool with ripgrep, and its glob tool with fd and
# rg --files, on the same generated tree (about 20,000 files; see
# tools/internal/gentree), and prints for each case the median wall time
# and peak memory of both sides and their ratios. The tree is built once
# (kept in $LATHE_BENCH_TREE, default /tmp/lathe-bench/tree, and reused
# while its generator parameters do not change). runs (default 10) is how
# many times each side runs a case. A tool that is not installed is
# skipped, with a note.
#
# Fairness: each side runs as a process, interleaved round by round with
# the order swapped every other round, so that both see the same load.
# lathe's process is the tools package's test binary running one
# iteration of BenchmarkGrep or BenchmarkGlob: the same Prepare and Run
# a model's call goes through. Both search hidden files, skip .git, honour
# .gitignore files (nested ones and .git/info/exclude) and, for grep, skip
# binary files; the cache is warm (each side runs once before timing). rg
# writes its matches to a file; lathe keeps at most 200 of them. Peak
# memory is the maximum resident set size from GNU time.
set -euo pipefail

runs=${1:-10}
cd "$(dirname "$0")/.."
tree=${LATHE_BENCH_TREE:-/tmp/lathe-bench/tree}
export LATHE_BENCH_TREE=$tree
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# Cases: name|arguments... grep's mirror grepBenchCases and glob's
# globBenchCases in tools/bench_test.go: keep the lists in step.
grep_cases=(
	'literal|-e|ErrNotFound'
	'regexp|-e|func \(s \*Server\) handle\w+Token'
	'ignorecase|-i|-e|todo'
	'charclass|-e|[A-Z]{4}\('
	'noliteral|-e|[A-Z][a-z]{2,}[0-9]{3}'
	'include|-g|*.ts|-e|TODO'
)
# glob cases: name|fd pattern|rg --files glob|directory
glob_cases=(
	'all-go|**/*.go|*.go|.'
	'under-dir|*.ts|*.ts|web/src'
	'all-md|**/*.md|*.md|.'
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
[ -x /usr/bin/time ] || { echo "needs GNU time in /usr/bin/time (apt-get install time)"; exit 1; }

echo "building the test binary and the tree in $tree (once)..."
go test -c -o "$out/tools.test" ./tools/
"$out/tools.test" -test.run '^$' -test.bench '^BenchmarkGrep$/^literal$' -test.benchtime 1x >/dev/null

# measure FILE CMD...: runs CMD in the tree, output to $out/last, and
# appends "wall_ms peak_kb" to FILE.
measure() {
	local file=$1 start end
	shift
	start=$(date +%s%N)
	(cd "$tree" && /usr/bin/time -f %M -o "$out/rss" "$@" >"$out/last" 2>&1 || true) # rg exits 1 on no match
	end=$(date +%s%N)
	echo "$(((end - start) / 1000000)) $(tail -1 "$out/rss")" >>"$file"
}

# median FILE COLUMN prints the median of a column of numbers.
median() { awk -v c="$2" '{ print $c }' "$1" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

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
	local ams bms akb bkb
	ams=$(median "$out/a" 1) bms=$(median "$out/b" 1) akb=$(median "$out/a" 2) bkb=$(median "$out/b" 2)
	printf '%-22s %9s %9s %7s %9s %9s %7s  %s\n' "$name" "$ams" "$bms" \
		"$(awk -v a="$ams" -v b="$bms" 'BEGIN { printf (b > 0 ? "%.2f" : "-"), a / b }')" \
		"$((akb / 1024))" "$((bkb / 1024))" \
		"$(awk -v a="$akb" -v b="$bkb" 'BEGIN { printf (b > 0 ? "%.2f" : "-"), a / b }')" \
		"$(sed -n 's/^ *bench_test.go:[0-9]*: //p' "$out/a.out" | tail -1) / $(wc -l <"$out/b.out") lines"
}

header() {
	printf '\nlathe against %s (median of %d runs)\n' "$1" "$runs"
	printf '%-22s %9s %9s %7s %9s %9s %7s  %s\n' case lathe_ms other_ms ratio lathe_MB other_MB ratio "lathe's result / the other's"
}

# lathe KIND CASE prints the command that runs one iteration of a case of
# BenchmarkGrep or BenchmarkGlob.
lathe=("$out/tools.test" -test.run '^$' -test.benchtime 1x -test.bench)

if $have_rg; then
	header rg
	for c in "${grep_cases[@]}"; do
		IFS='|' read -r -a parts <<<"$c"
		compare "grep/${parts[0]}" "${lathe[@]}" "^BenchmarkGrep\$/^${parts[0]}\$" -- \
			rg --no-require-git --hidden --no-ignore-global -g '!.git' -n --no-messages "${parts[@]:1}" .
	done
fi
if $have_fd; then
	header fd
	for c in "${glob_cases[@]}"; do
		IFS='|' read -r name fdpat rgglob dir <<<"$c"
		compare "glob/$name" "${lathe[@]}" "^BenchmarkGlob\$/^$name\$" -- "$fd" -H -t f -E .git -g "$fdpat" "$dir"
	done
fi
if $have_rg; then
	header 'rg --files'
	for c in "${glob_cases[@]}"; do
		IFS='|' read -r name fdpat rgglob dir <<<"$c"
		compare "glob/$name" "${lathe[@]}" "^BenchmarkGlob\$/^$name\$" -- \
			rg --files --no-require-git --hidden --no-ignore-global -g '!.git' -g "$rgglob" "$dir"
	done
fi
