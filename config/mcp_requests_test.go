package config

import (
	"strings"
	"testing"
	"time"
)

// mcp.start_timeout takes seconds or a duration; the default depends on
// whether anybody watches the start.
func TestMCPStartTimeout(t *testing.T) {
	for _, tc := range []struct {
		user        string
		oneShot, ui time.Duration
		err         string
	}{
		{"", 5 * time.Second, 30 * time.Second, ""},
		{"[mcp]\nstart_timeout = 2\n", 2 * time.Second, 2 * time.Second, ""},
		{"[mcp]\nstart_timeout = 0.5\n", 500 * time.Millisecond, 500 * time.Millisecond, ""},
		{"[mcp]\nstart_timeout = \"1m\"\n", time.Minute, time.Minute, ""},
		{"[mcp]\nstart_timeout = \"soon\"\n", 0, 0, "mcp.start_timeout: not a duration: use seconds"},
		{"[mcp]\nstart_timeout = true\n", 0, 0, `mcp.start_timeout: must be seconds, or a duration such as "2s", not true`},
		{"[mcp]\nstart_timeout = \"11m\"\n", 0, 0, "mcp.start_timeout: must be between 0 (the default) and 10 minutes"},
	} {
		l, err := Load(setup(t, tc.user, "", nil))
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: err = %v, want %q", tc.user, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%q: %v", tc.user, err)
		}
		if got, got2 := l.MCP.StartWait(true), l.MCP.StartWait(false); got != tc.oneShot || got2 != tc.ui {
			t.Errorf("%q: start wait %v one-shot, %v UI; want %v, %v", tc.user, got, got2, tc.oneShot, tc.ui)
		}
	}
}

// What a server's requests of the user get: its own setting, else [mcp]'s,
// else ask.
func TestMCPRequestSettings(t *testing.T) {
	user := "[mcp]\nsampling = \"deny\"\nelicitation = \"accept\"\n\n" +
		"[mcp.servers.a]\ncommand = \"a\"\nsampling = \"allow\"\n\n[mcp.servers.b]\ncommand = \"b\"\nelicitation = \"decline\"\n"
	l, err := Load(setup(t, user, "", nil))
	if err != nil {
		t.Fatal(err)
	}
	m := l.MCP
	if m.SamplingOf("a") != Allow || m.SamplingOf("b") != Deny || m.ElicitationOf("a") != Accept || m.ElicitationOf("b") != Decline {
		t.Errorf("sampling a %s b %s, elicitation a %s b %s", m.SamplingOf("a"), m.SamplingOf("b"), m.ElicitationOf("a"), m.ElicitationOf("b"))
	}
	l, err = Load(setup(t, "", "", nil))
	if err != nil {
		t.Fatal(err)
	}
	if l.MCP.SamplingOf("x") != Ask || l.MCP.ElicitationOf("x") != Ask {
		t.Errorf("defaults: sampling %s, elicitation %s", l.MCP.SamplingOf("x"), l.MCP.ElicitationOf("x"))
	}
	for _, bad := range []struct{ user, want string }{
		{"[mcp]\nsampling = \"yes\"\n", `mcp.sampling: must be "ask", "allow" or "deny"`},
		{"[mcp]\nelicitation = \"allow\"\n", `mcp.elicitation: must be "ask", "accept" or "decline"`},
		{"[mcp.servers.x]\ncommand = \"x\"\nsampling = \"accept\"\n", `mcp.servers.x.sampling: must be "ask", "allow" or "deny"`},
		{"[mcp.servers.x]\ncommand = \"x\"\nelicitation = \"deny\"\n", `mcp.servers.x.elicitation: must be "ask", "accept" or "decline"`},
	} {
		if _, err := Load(setup(t, bad.user, "", nil)); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%q: err = %v, want %q", bad.user, err, bad.want)
		}
	}
}

// A project may make the answers stricter, never looser: the servers it
// declares must not use the model, or have their questions answered,
// unasked.
func TestMCPRequestSettingsProject(t *testing.T) {
	user := "[mcp]\nsampling = \"deny\"\n\n[mcp.servers.mine]\ncommand = \"mine\"\n\n[mcp.servers.other]\ncommand = \"other\"\n"
	project := "[mcp]\nsampling = \"ask\"\nelicitation = \"accept\"\n\n" +
		"[mcp.servers.theirs]\ncommand = \"theirs\"\nsampling = \"allow\"\nelicitation = \"accept\"\n\n" +
		"[mcp.servers.mine]\nelicitation = \"decline\"\n\n[mcp.servers.other]\nsampling = \"ask\"\n"
	l, err := Load(setup(t, user, project, nil))
	if err != nil {
		t.Fatal(err)
	}
	m := l.MCP
	if m.Sampling != Deny || m.Elicitation != "" {
		t.Errorf("[mcp] loosened: sampling %q, elicitation %q", m.Sampling, m.Elicitation)
	}
	if m.SamplingOf("theirs") != Deny || m.ElicitationOf("theirs") != Ask || m.SamplingOf("other") != Deny {
		t.Errorf("servers loosened: theirs %s/%s, other %s", m.SamplingOf("theirs"), m.ElicitationOf("theirs"), m.SamplingOf("other"))
	}
	if m.ElicitationOf("mine") != Decline || m.Servers["mine"].Project() {
		t.Errorf("mine made stricter: elicitation %s, project %v (a stricter server needs no trust)", m.ElicitationOf("mine"), m.Servers["mine"].Project())
	}
	if got := strings.Join(l.Warnings, "\n"); strings.Count(got, "ignored") != 5 {
		t.Errorf("warnings = %s", got)
	}
}
