package cli

import (
	"runtime"
	"runtime/debug"
	"strings"
	"time"
)

// versionLine is what --version prints: the module version, the commit it
// was built from (its date, and whether the tree had changes), and the Go
// version: "lathe v0.0.0-… (rev 1a2b3c4, 2026-11-23, modified) go1.26.0".
// A binary built without that information (go test, -buildvcs=false)
// says "dev" and leaves the commit out.
func versionLine(info *debug.BuildInfo, ok bool) string {
	version, goVersion := moduleVersion(info, ok), runtime.Version()
	var vcs []string
	if ok {
		if info.GoVersion != "" {
			goVersion = info.GoVersion
		}
		vcs = revision(info.Settings)
	}
	line := "lathe " + version
	if len(vcs) > 0 {
		line += " (" + strings.Join(vcs, ", ") + ")"
	}
	return line + " " + goVersion
}

// moduleVersion is lathe's module version, "dev" when the build does not
// say (go test, go build in the module).
func moduleVersion(info *debug.BuildInfo, ok bool) string {
	if ok && info.Main.Version != "" && info.Main.Version != "(devel)" {
		return info.Main.Version
	}
	return "dev"
}

// revision is the commit of the build settings, its date and whether the
// tree had changes, as far as they say.
func revision(settings []debug.BuildSetting) []string {
	var rev, date string
	modified := false
	for _, s := range settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			if t, err := time.Parse(time.RFC3339, s.Value); err == nil {
				date = t.UTC().Format(time.DateOnly)
			}
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if rev == "" {
		return nil
	}
	out := []string{"rev " + rev[:min(7, len(rev))]}
	if date != "" {
		out = append(out, date)
	}
	if modified {
		out = append(out, "modified")
	}
	return out
}
