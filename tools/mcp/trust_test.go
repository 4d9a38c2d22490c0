package mcp

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestTrust(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lathe", TrustFileName)
	seals := map[string]string{"fs": "sha256:0123", "db": "sha256:4567"}
	if got, err := Sealed(path, "/p"); len(got) != 0 || err != nil {
		t.Fatalf("no file: %v %v", got, err)
	}
	if err := Trust(path, "/p", seals, time.Unix(0, 0)); err != nil {
		t.Fatal(err)
	}
	if got, _ := Sealed(path, "/p"); got["fs"] != "sha256:0123" || got["db"] != "sha256:4567" || len(got) != 2 {
		t.Errorf("sealed after Trust: %v", got)
	}
	if got, _ := Sealed(path, "/elsewhere"); len(got) != 0 {
		t.Errorf("another directory: %v", got)
	}
	b, _ := os.ReadFile(path)
	if !strings.Contains(string(b), `"version": 2`) || !strings.Contains(string(b), `"db": "sha256:4567"`) {
		t.Errorf("file:\n%s", b)
	}
	// Version 1 kept digests of the definitions alone: it trusts nothing.
	if err := os.WriteFile(path, []byte(`{"version": 1, "projects": {"/p": {"servers": "sha256:0123", "names": ["fs"]}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, err := Sealed(path, "/p"); len(got) != 0 || err != nil {
		t.Errorf("version 1: %v %v", got, err)
	}
	if err := Trust(path, "/p", seals, time.Unix(0, 0)); err != nil {
		t.Errorf("writing over version 1: %v", err)
	}
	if err := os.WriteFile(path, []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Sealed(path, "/p"); err == nil || !strings.Contains(err.Error(), "is damaged") {
		t.Errorf("a damaged file: %v", err)
	}
}

// TestTrustLSP: the language servers' trust is kept beside the MCP
// servers' of the same project, and neither write drops the other's.
func TestTrustLSP(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lathe", TrustFileName)
	if err := Trust(path, "/p", map[string]string{"fs": "sha256:1"}, time.Unix(0, 0)); err != nil {
		t.Fatal(err)
	}
	if err := TrustLSP(path, "/p", map[string]string{"rb": "sha256:2"}, time.Unix(1, 0)); err != nil {
		t.Fatal(err)
	}
	if err := TrustLSP(path, "/p", map[string]string{"ex": "sha256:3"}, time.Unix(2, 0)); err != nil {
		t.Fatal(err)
	}
	if got, _ := SealedLSP(path, "/p"); got["rb"] != "sha256:2" || got["ex"] != "sha256:3" || len(got) != 2 {
		t.Errorf("language servers after two trusts: %v", got)
	}
	if got, _ := Sealed(path, "/p"); got["fs"] != "sha256:1" || len(got) != 1 {
		t.Errorf("MCP servers after the language servers' trust: %v", got)
	}
	if err := Trust(path, "/p", map[string]string{"db": "sha256:4"}, time.Unix(3, 0)); err != nil {
		t.Fatal(err)
	}
	if got, _ := SealedLSP(path, "/p"); len(got) != 2 {
		t.Errorf("language servers after the MCP servers' trust: %v", got)
	}
	if got, _ := SealedLSP(path, "/q"); len(got) != 0 {
		t.Errorf("another directory: %v", got)
	}
}

// sealer is a Seal that a test changes, as a command in the sandbox
// would change the files a server runs.
type sealer struct {
	mu    sync.Mutex
	seals map[string]Seal
}

func (s *sealer) seal(name string) Seal {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.seals[name]
}

func (s *sealer) set(name string, seal Seal) {
	s.mu.Lock()
	s.seals[name] = seal
	s.mu.Unlock()
}

// TestTrustCoversWhatServersRun: a project's server trusted before starts
// when it runs what it was trusted with, and not when that changed; a
// server of the user's own that runs files of the project waits for
// trust like a project's; trust given starts them and is what Seals
// returns; --trust-project-mcp trusts what they run now.
func TestTrustCoversWhatServersRun(t *testing.T) {
	proj := stdio(t, nil)
	proj.Project = true
	mine := stdio(t, nil)
	plain := stdio(t, nil)
	sl := &sealer{seals: map[string]Seal{
		"proj":  {Digest: "sha256:proj-1", Files: []string{"mcp.sh"}},
		"mine":  {Digest: "sha256:mine-1", Files: []string{"rtmcp.py"}},
		"plain": {Digest: "sha256:plain"},
	}}
	servers := map[string]Server{"proj": proj, "mine": mine, "plain": plain}

	m, _ := start(t, Options{Servers: servers, Seal: sl.seal, Sealed: map[string]string{"proj": "sha256:proj-1"}})
	m.WaitStarted(t.Context())
	states := func(m *Manager) map[string]Status {
		out := map[string]Status{}
		for _, st := range m.Servers() {
			out[st.Name] = st
		}
		return out
	}
	st := states(m)
	if st["proj"].State != StateReady || st["plain"].State != StateReady {
		t.Errorf("trusted and plain servers: %+v", st)
	}
	if got := st["mine"]; got.State != StateUntrusted || !strings.Contains(got.Why, "it runs rtmcp.py from the project") ||
		!slices.Equal(got.Runs, []string{"rtmcp.py"}) || got.Changed {
		t.Errorf("a server of the user's running the project's file: %+v", got)
	}
	m.Trust()
	m.WaitStarted(t.Context())
	if got := states(m)["mine"].State; got != StateReady {
		t.Errorf("after Trust: %s", got)
	}
	if got := m.Seals(); got["mine"] != "sha256:mine-1" || got["proj"] != "sha256:proj-1" || len(got) != 2 {
		t.Errorf("seals %v", got)
	}

	sl.set("proj", Seal{Digest: "sha256:proj-2", Files: []string{"mcp.sh"}})
	m2, _ := start(t, Options{Servers: servers, Seal: sl.seal, Sealed: map[string]string{"proj": "sha256:proj-1", "mine": "sha256:mine-1"}})
	if got := states(m2)["proj"]; got.State != StateUntrusted || !got.Changed || !strings.Contains(got.Why, "changed since it was trusted (mcp.sh)") {
		t.Errorf("a changed project server: %+v", got)
	}
	m3, _ := start(t, Options{Servers: servers, Seal: sl.seal, Trusted: true})
	m3.WaitStarted(t.Context())
	if got := m3.Untrusted(); len(got) != 0 {
		t.Errorf("--trust-project-mcp left %v untrusted", got)
	}
}

// TestChangedBeforeRestart: a trusted server whose files change while it
// runs is not started again when it stops: it waits for trust, and the
// user is told why.
func TestChangedBeforeRestart(t *testing.T) {
	cfg := stdio(t, nil)
	cfg.Project = true
	sl := &sealer{seals: map[string]Seal{"t": {Digest: "sha256:1", Files: []string{"mcp.sh"}}}}
	m, n := start(t, Options{Servers: map[string]Server{"t": cfg}, Seal: sl.seal, Trusted: true})
	byName, _, _ := toolsOf(t, m, 32768, false, true)
	sl.set("t", Seal{Digest: "sha256:2", Files: []string{"mcp.sh"}})
	run(t, t.Context(), byName["t__crash"], `{}`)
	if x := n.next(t); !strings.Contains(x.Text, "starting it again") {
		t.Errorf("first notice %q", x.Text)
	}
	x := n.next(t)
	if !x.Failed || x.Text != "MCP server t was not started: what it runs changed since it was trusted (mcp.sh)" {
		t.Errorf("notice %q", x.Text)
	}
	m.WaitStarted(t.Context())
	if got := m.Untrusted(); !slices.Equal(got, []string{"t"}) {
		t.Errorf("untrusted %v", got)
	}
	m.Trust()
	m.WaitStarted(t.Context())
	if got := m.Servers()[0].State; got != StateReady {
		t.Errorf("trusted again: %s", got)
	}
}
