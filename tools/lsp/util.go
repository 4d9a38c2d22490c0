package lsp

import (
	"errors"
	"maps"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

func mapsKeys(m map[string]string) func(func(string) bool) { return maps.Keys(m) }

// getenv is the value of name in environ (KEY=VALUE).
func getenv(environ []string, name string) string {
	for _, kv := range slices.Backward(environ) {
		if k, v, ok := strings.Cut(kv, "="); ok && k == name {
			return v
		}
	}
	return ""
}

// lookPath finds command as a shell would with PATH path; a relative
// command with a slash is taken from dir.
func lookPath(command, path, dir string) (string, error) {
	if strings.Contains(command, "/") {
		if !filepath.IsAbs(command) {
			command = filepath.Join(dir, command)
		}
		if _, err := exec.LookPath(command); err != nil {
			return "", errors.New(command + " not found")
		}
		return command, nil
	}
	for _, d := range filepath.SplitList(path) {
		if d == "" || !filepath.IsAbs(d) {
			continue // the working directory is not searched
		}
		full := filepath.Join(d, command)
		if _, err := exec.LookPath(full); err == nil {
			return full, nil
		}
	}
	return "", errors.New(command + " not found on PATH")
}
