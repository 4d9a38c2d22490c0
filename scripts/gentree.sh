#!/usr/bin/env bash
# Usage: scripts/gentree.sh [-files N] [-layout small|monorepo] [-seed S] DIR
#
# Writes the benchmarks' generated tree into DIR (tools/internal/gentree):
# by default the monorepo of 500,000 files, about 4.1 GB, with .gitignore
# files at every level and three text files of 20 to 40 MB, in about three
# minutes. The same parameters always give the same tree; a DIR that holds
# one made with them is kept as it is. scripts/bench.sh -m makes the same
# tree for itself.
set -euo pipefail
cd "$(dirname "$0")/.."
exec go run ./tools/internal/gentree/cmd "$@"
