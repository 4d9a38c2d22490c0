#!/usr/bin/env bash
# Usage: scripts/mcp-npm.sh DIR
#
# Installs the third-party MCP software the tests run against (the official
# conformance suite, server-everything, server-filesystem, server-memory; the
# versions .ci/mcp/package-lock.json pins) under DIR, and prints DIR's
# node_modules, which LATHE_MCP_NODE_MODULES names to the tests. Nothing is
# installed again while the lock file is the one installed from. Needs node
# and npm; the registry is reached only to install.
set -euo pipefail
dir=$1
src="$(cd "$(dirname "$0")/.." && pwd)/.ci/mcp"
mkdir -p "$dir"
stamp="$dir/node_modules/.lathe-lock"
if ! cmp -s "$src/package-lock.json" "$stamp"; then
  cp "$src/package.json" "$src/package-lock.json" "$dir/"
  (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error >&2)
  cp "$src/package-lock.json" "$stamp"
fi
# conformance 0.1.16 imports fs.globSync, which node 22 has, at its top,
# for its tier-check command alone: on an older node every command fails
# to load. The import is replaced by a stub that throws when tier-check
# runs.
f="$dir/node_modules/@modelcontextprotocol/conformance/dist/index.js"
if ! node -e 'process.exit(require("fs").globSync ? 0 : 1)' && grep -q 'globSync as o,' "$f"; then
  sed -i \
    -e 's/import{existsSync as a,globSync as o,mkdtempSync as s/import{existsSync as a,mkdtempSync as s/' \
    -e 's/^import{Command as e}from"commander";/const o=(...x)=>{throw Error("fs.globSync needs node>=22 (tier-check only)")};import{Command as e}from"commander";/' \
    "$f"
fi
echo "$dir/node_modules"
