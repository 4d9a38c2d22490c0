package engine

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"

	"lathe/config"
	"lathe/tools"
	"lathe/tools/sandbox"
)

// Confinement is how shell commands run in the workspace dir: through
// lathe's helper, on Linux, which confines them as the [sandbox] config
// says and kills every process a command leaves; in a process group
// elsewhere. Where the system cannot confine commands it says so (the
// warning), and by the fallback either runs them unconfined or refuses
// them.
func Confinement(cfg config.Config, dir string, getenv func(string) string) (*tools.Confinement, string) {
	fallback := sandbox.Fallback(cfg.Sandbox.Fallback)
	if fallback == "" {
		fallback = sandbox.Warn // each command is approved by someone who was told
		if cfg.Approval.All {
			fallback = sandbox.Refuse // --yes: nothing runs unconfined unseen
		}
	}
	p := policy(cfg, dir, getenv)
	exe, err := os.Executable()
	if err != nil || runtime.GOOS != "linux" {
		switch {
		case cfg.Sandbox.Mode == string(sandbox.Off):
			return nil, ""
		case fallback == sandbox.Refuse:
			err := fmt.Errorf("%w: it needs Linux, not %s (sandbox fallback is %q)", sandbox.ErrUnsupported, runtime.GOOS, fallback)
			return &tools.Confinement{Exe: exe, Policy: p, Refused: err}, "commands will not run: " + err.Error() +
				` (set [sandbox] fallback = "warn" to run them unconfined, or use --sandbox off)`
		}
		return nil, fmt.Sprintf("commands run unconfined: the sandbox needs Linux (%s here)", runtime.GOOS)
	}
	resolved, warning, err := Probe(getenv).Resolve(p, fallback)
	if err != nil {
		return &tools.Confinement{Exe: exe, Policy: p, Refused: err}, "commands will not run: " + err.Error() +
			` (set [sandbox] fallback = "warn" to run them unconfined, or use --sandbox off)`
	}
	return &tools.Confinement{Exe: exe, Policy: resolved}, warning
}

// Probe says what the system can confine; the variable noSandboxEnv,
// set, makes it a system that cannot.
func Probe(getenv func(string) string) sandbox.Support {
	return sandbox.Probe(sandbox.ProbeOptions{Unsupported: getenv(noSandboxEnv) != ""})
}

// noSandboxEnv, set, makes lathe take the system for one that cannot
// confine commands: for testing the fallback.
const noSandboxEnv = "LATHE_TEST_NO_SANDBOX"

// policy is the sandbox policy of the config for the workspace dir:
// lathe's default (writes in the workspace, temp and caches; secrets and
// lathe's own files unreadable; credentials out of the environment; no
// network) with the config's mode, network, extra paths and variables.
// The variables that hold the keys lathe's config names are kept from
// commands too.
func policy(cfg config.Config, dir string, getenv func(string) string) sandbox.Policy {
	var own []string
	for _, d := range []string{config.DataDir(getenv), config.StateDir(getenv), filepath.Dir(config.UserFile(getenv))} {
		if d != "" && d != "." {
			own = append(own, d)
		}
	}
	p := sandbox.DefaultPolicy(dir, getenv("HOME"), getenv, own...)
	p.Mode = sandbox.Mode(cfg.Sandbox.Mode)
	p.Network = cfg.Sandbox.Network
	p.Writable = append(p.Writable, cfg.Sandbox.Writable...)
	p.ReadDeny = append(p.ReadDeny, cfg.Sandbox.ReadableDeny...)
	p.EnvDeny = append(p.EnvDeny, keyVariables(cfg)...)
	p.EnvDeny = append(p.EnvDeny, cfg.Sandbox.EnvDeny...)
	p.EnvPass = cfg.Sandbox.EnvPass
	return p.Clean()
}

// keyVariables are the variables the config names as holding keys and
// tokens (api_key_env, bearer_token_env), and those the user's own config
// sets for an MCP server (its env: what a server is given is no command's
// business), but for the few every command needs. A project's servers
// add none: a project may not take PATH away from commands.
func keyVariables(cfg config.Config) []string {
	var out []string
	add := func(names ...string) {
		for _, n := range names {
			if n != "" && !slices.Contains(out, n) && !slices.Contains(commonVars, n) {
				out = append(out, n)
			}
		}
	}
	add(cfg.APIKeyEnv)
	for _, h := range cfg.Hosts {
		add(h.APIKeyEnv)
	}
	for _, name := range slices.Sorted(maps.Keys(cfg.MCP.Servers)) {
		s := cfg.MCP.Servers[name]
		add(s.BearerTokenEnv)
		if !s.Project() {
			add(slices.Sorted(maps.Keys(s.Env))...)
		}
	}
	return out
}

// commonVars are never withheld for being an MCP server's.
var commonVars = []string{"PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LC_ALL", "TERM", "TZ", "TMPDIR"}
