package cli

import (
	"runtime"
	"runtime/debug"
	"testing"
)

func TestVersionLine(t *testing.T) {
	vcs := []debug.BuildSetting{{Key: "-compiler", Value: "gc"}, {Key: "vcs", Value: "git"},
		{Key: "vcs.revision", Value: "1a2b3c4d5e6f7a8b9c0d1a2b3c4d5e6f7a8b9c0d"},
		{Key: "vcs.time", Value: "2026-11-23T21:37:16Z"}, {Key: "vcs.modified", Value: "true"}}
	tests := []struct {
		name string
		info *debug.BuildInfo
		ok   bool
		want string
	}{
		{"a build from a checkout with changes", &debug.BuildInfo{GoVersion: "go1.26.0",
			Main: debug.Module{Version: "v0.0.0-20261123213716-1a2b3c4d5e6f+dirty"}, Settings: vcs},
			true, "lathe v0.0.0-20261123213716-1a2b3c4d5e6f+dirty (rev 1a2b3c4, 2026-11-23, modified) go1.26.0"},
		{"a clean build", &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "v1.2.0"},
			Settings: vcs[:4]}, true, "lathe v1.2.0 (rev 1a2b3c4, 2026-11-23) go1.26.0"},
		{"no version control information", &debug.BuildInfo{GoVersion: "go1.26.0",
			Main: debug.Module{Version: "(devel)"}, Settings: vcs[:1]}, true, "lathe dev go1.26.0"},
		{"no build information", nil, false, "lathe dev " + runtime.Version()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := versionLine(tt.info, tt.ok); got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}
