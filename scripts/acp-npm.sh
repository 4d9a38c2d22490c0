#!/usr/bin/env bash
# Usage: scripts/acp-npm.sh DIR
#
# Installs the official TypeScript Agent Client Protocol SDK that lathe acp's
# end-to-end test drives it with (the version .ci/acp/package-lock.json
# pins) under DIR, and prints DIR's node_modules, which
# LATHE_ACP_NODE_MODULES names to the test. Nothing is installed again while
# the lock file is the one installed from. Needs node and npm; the registry
# is reached only to install.
set -euo pipefail
dir=$1
src="$(cd "$(dirname "$0")/.." && pwd)/.ci/acp"
mkdir -p "$dir"
stamp="$dir/node_modules/.lathe-lock"
if ! cmp -s "$src/package-lock.json" "$stamp"; then
  cp "$src/package.json" "$src/package-lock.json" "$dir/"
  (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error >&2)
  cp "$src/package-lock.json" "$stamp"
fi
echo "$dir/node_modules"
