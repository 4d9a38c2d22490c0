package mcptest

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// NodeModules returns the node_modules directory that holds the
// third-party MCP software lathe is tested against (the conformance suite,
// server-everything, server-filesystem, server-memory), which
// scripts/mcp-npm.sh installs: the one LATHE_MCP_NODE_MODULES names, else
// the one in the cache .ci/run installs into. Without node the test is
// skipped; with node but without the packages, it fails, saying how to
// install them.
func NodeModules(tb testing.TB) string {
	tb.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		tb.Skip("node is not installed: the tests against third-party MCP servers need it (and npm, to install them)")
	}
	dir := os.Getenv("LATHE_MCP_NODE_MODULES")
	if dir == "" {
		cache := os.Getenv("XDG_CACHE_HOME")
		if cache == "" {
			cache = filepath.Join(os.Getenv("HOME"), ".cache")
		}
		dir = filepath.Join(cache, "lathe", "mcp-npm", "node_modules")
	}
	if _, err := os.Stat(filepath.Join(dir, "@modelcontextprotocol", "conformance", "package.json")); err != nil {
		tb.Fatalf("the third-party MCP software is not installed in %s: run scripts/mcp-npm.sh DIR "+
			"and set LATHE_MCP_NODE_MODULES to the directory it prints (.ci/run does both)", dir)
	}
	return dir
}

// NodePackage is the directory of the package name (such as
// "server-everything") of @modelcontextprotocol in NodeModules.
func NodePackage(tb testing.TB, name string) string {
	tb.Helper()
	return filepath.Join(NodeModules(tb), "@modelcontextprotocol", name)
}
