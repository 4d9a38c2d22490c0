#!/usr/bin/env bash
# Usage: scripts/bench.sh [runs]
#
# Compares lathe's grep tool with ripgrep on the same generated tree (about
# 20,000 files; see tools/internal/gentree). It builds the tree once (kept in
# $LATHE_BENCH_TREE, default /tmp/lathe-bench/tree, and reused while its
# generator parameters do not change), runs BenchmarkGrep, then times rg on
# each case with the same pattern and the same ignore rules, and prints both
# times and their ratio. runs (default 10) is how many times each side runs
# a case. rg is skipped, with a note, when it is not installed.
#
# Fairness: both search hidden files, skip .git, honour .gitignore files
# (nested ones and .git/info/exclude) and skip binary files; the cache is
# warm (the tree was just written and each side runs once before timing);
# rg writes its matches to a file on the same disk, lathe keeps at most 200
# of them. rg's time includes starting its process (a few ms); Go's does not.
set -euo pipefail

runs=${1:-10}
cd "$(dirname "$0")/.."
tree=${LATHE_BENCH_TREE:-/tmp/lathe-bench/tree}
export LATHE_BENCH_TREE=$tree
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# Cases: name|rg argument|rg argument... They mirror grepBenchCases in
# tools/bench_test.go: keep the two lists in step.
cases=(
	'literal|-e|ErrNotFound'
	'regexp|-e|func \(s \*Server\) handle\w+Token'
	'ignorecase|-i|-e|todo'
	'noliteral|-e|[A-Z]{4}\('
	'include|-g|*.ts|-e|TODO'
)

echo "building the tree in $tree (once) and warming the cache..."
go test -run '^$' -bench '^BenchmarkGrep$' -benchtime 1x ./tools/ >/dev/null

echo "running BenchmarkGrep ($runs runs per case)..."
go test -run '^$' -bench '^BenchmarkGrep$' -benchtime "${runs}x" ./tools/ | tee "$out/go.txt" | grep -E '^Benchmark|matches' || true

have_rg=true
if ! command -v rg >/dev/null; then
	have_rg=false
	echo "rg is not installed: skipping the comparison (apt-get install ripgrep)"
fi

# rg_ms NAME ARGS... prints rg's mean wall time in ms over $runs runs.
rg_ms() {
	local args=(--no-require-git --hidden --no-ignore-global -g '!.git' -n --no-messages "$@" .)
	(cd "$tree" && rg "${args[@]}" >"$out/rg.txt" || true) # warm-up; exit 1 means no match
	local start end
	start=$(date +%s%N)
	for ((i = 0; i < runs; i++)); do
		(cd "$tree" && rg "${args[@]}" >"$out/rg.txt" || true)
	done
	end=$(date +%s%N)
	echo $(((end - start) / runs / 1000000))
}

printf '\n%-12s %10s %10s %8s %10s\n' case lathe_ms rg_ms ratio rg_lines
for c in "${cases[@]}"; do
	IFS='|' read -r -a parts <<<"$c"
	name=${parts[0]}
	rgargs=("${parts[@]:1}")
	go_ns=$(awk -v n="BenchmarkGrep/$name-" 'index($1, n) == 1 { print $3 }' "$out/go.txt")
	go_ms=$((${go_ns%.*} / 1000000))
	if $have_rg; then
		ms=$(rg_ms "${rgargs[@]}")
		lines=$(wc -l <"$out/rg.txt")
		ratio=$(awk -v a="$go_ms" -v b="$ms" 'BEGIN { printf (b > 0 ? "%.2f" : "-"), a / b }')
		printf '%-12s %10s %10s %8s %10s\n' "$name" "$go_ms" "$ms" "$ratio" "$lines"
	else
		printf '%-12s %10s %10s %8s %10s\n' "$name" "$go_ms" - - -
	fi
done
