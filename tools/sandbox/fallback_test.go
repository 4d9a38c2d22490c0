//go:build linux

package sandbox_test

import (
	"errors"
	"strings"
	"testing"

	"lathe/tools/sandbox"
)

// TestFallback forces "unsupported" and follows both fallbacks: refuse
// runs nothing; warn runs the command unconfined, and still kills what it
// leaves behind.
func TestFallback(t *testing.T) {
	e := newEnv(t)
	s := sandbox.Probe(sandbox.ProbeOptions{Unsupported: true})
	if s.Confines() || s.Reason == "" {
		t.Fatalf("forced probe %+v: want unsupported with a reason", s)
	}
	if err := s.Check(e.policy); !errors.Is(err, sandbox.ErrUnsupported) {
		t.Errorf("Check: %v, want ErrUnsupported", err)
	}
	if d := s.Describe(e.policy); len(d) != 1 || !strings.Contains(d[0], "cannot be enforced") {
		t.Errorf("Describe: %q", d)
	}
	if _, _, err := s.Resolve(e.policy, sandbox.Refuse); !errors.Is(err, sandbox.ErrUnsupported) {
		t.Errorf("Resolve refuse: %v, want ErrUnsupported", err)
	}
	p, warning, err := s.Resolve(e.policy, sandbox.Warn)
	if err != nil || p.Mode != sandbox.Off || !strings.Contains(warning, s.Reason) {
		t.Fatalf("Resolve warn: %v %q %v: want mode off and a warning", p.Mode, warning, err)
	}
	m := marker()
	r := e.run(p, "echo x > "+e.outside+"/unconfined; setsid sleep "+m+" >/dev/null 2>&1 & "+started(m, 1))
	t.Log(r)
	if !exists(e.outside + "/unconfined") {
		t.Error("with the fallback, the command should run unconfined")
	}
	if len(alive(m)) > 0 || len(r.Killed) != 1 {
		t.Errorf("killed %v: want the sleep killed", r.Killed)
	}
	if err := s.Check(p); err != nil {
		t.Errorf("Check(off): %v", err)
	}
}

// TestProbe asks the real kernel; on this machine it must confine.
func TestProbe(t *testing.T) {
	requireSandbox(t)
	e := newEnv(t)
	s := sandbox.Probe(sandbox.ProbeOptions{})
	if s.LandlockABI < 1 || !s.Seccomp || s.Check(e.policy) != nil {
		t.Fatalf("probe %+v", s)
	}
	p, warning, err := s.Resolve(e.policy, sandbox.Refuse)
	if err != nil || warning != "" || p.Mode != sandbox.WorkspaceWrite {
		t.Errorf("Resolve: %v %q %v", p.Mode, warning, err)
	}
	d := strings.Join(s.Describe(e.policy), "\n")
	t.Log(d)
	for _, want := range []string{"writes: only beneath " + e.ws, "network: refused", e.home + "/.ssh", ".git/hooks"} {
		if !strings.Contains(d, want) {
			t.Errorf("Describe lacks %q", want)
		}
	}
}

func TestParse(t *testing.T) {
	for _, s := range []string{"workspace-write", "read-only", "off"} {
		if m, err := sandbox.ParseMode(s); err != nil || string(m) != s {
			t.Errorf("ParseMode(%q) = %q, %v", s, m, err)
		}
	}
	for _, s := range []string{"refuse", "warn"} {
		if f, err := sandbox.ParseFallback(s); err != nil || string(f) != s {
			t.Errorf("ParseFallback(%q) = %q, %v", s, f, err)
		}
	}
	for _, s := range []string{"", "on", "Off", "danger-full-access"} {
		if _, err := sandbox.ParseMode(s); err == nil {
			t.Errorf("ParseMode(%q) accepted", s)
		}
		if _, err := sandbox.ParseFallback(s); err == nil {
			t.Errorf("ParseFallback(%q) accepted", s)
		}
	}
}
