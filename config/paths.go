package config

import "path/filepath"

// StateDir is where lathe keeps its log: $XDG_STATE_HOME/lathe, or
// ~/.local/state/lathe when XDG_STATE_HOME is unset; empty when neither
// can be found.
func StateDir(getenv func(string) string) string {
	return xdgDir(getenv, "XDG_STATE_HOME", ".local/state")
}

// DataDir is where lathe keeps its sessions: $XDG_DATA_HOME/lathe, or
// ~/.local/share/lathe; empty when neither can be found.
func DataDir(getenv func(string) string) string {
	return xdgDir(getenv, "XDG_DATA_HOME", ".local/share")
}

// xdgDir is $env/lathe, or ~/fallback/lathe when env is unset or, as the
// XDG base directory specification asks, relative.
func xdgDir(getenv func(string) string, env, fallback string) string {
	dir := getenv(env)
	if !filepath.IsAbs(dir) {
		home := getenv("HOME")
		if home == "" {
			return ""
		}
		dir = filepath.Join(home, fallback)
	}
	return filepath.Join(dir, "lathe")
}
