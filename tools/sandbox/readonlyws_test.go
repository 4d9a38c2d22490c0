//go:build linux

package sandbox_test

import (
	"path/filepath"
	"testing"
)

// TestReadOnlyWorkspace: with ReadOnlyWorkspace, what a language server
// runs under, the workspace cannot be written, even where a writable
// directory holds it, while the temp and cache directories can.
func TestReadOnlyWorkspace(t *testing.T) {
	requireSandbox(t)
	for _, tc := range []struct {
		name     string
		holdWork bool // the workspace lies beneath a writable directory
	}{{"workspace apart", false}, {"workspace beneath a writable directory", true}} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			p := e.policy
			p.ReadOnlyWorkspace = true
			if tc.holdWork {
				p.Writable = append(p.Writable, filepath.Dir(e.ws))
			}
			r := e.run(p, "echo x > f 2>/dev/null || echo refused; echo t > $TMPDIR/t && echo c > $XDG_CACHE_HOME/c && cat $TMPDIR/t $XDG_CACHE_HOME/c")
			if r.stdout != "refused\nt\nc\n" {
				t.Errorf("stdout %q, want the workspace refused and temp and cache written\n%s", r.stdout, r)
			}
			if exists(filepath.Join(e.ws, "f")) {
				t.Error("the command wrote in the workspace")
			}
		})
	}
}
