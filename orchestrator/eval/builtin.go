package eval

import (
	"embed"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/rogpeppe/go-internal/txtar"
)

// BuiltinName is the suite name of the built-in suite.
const BuiltinName = "builtin"

// builtinTasks are the tasks of the built-in suite, one archive each
// (task.toml, files/..., and the check's own files): a Go module among a
// task's files cannot be embedded as files, and the go tool would take its
// sources for packages of lathe's.
//
//go:embed builtin/*.txtar
var builtinTasks embed.FS

// Builtin writes the built-in suite into dir (a task a subdirectory) and
// reads it.
func Builtin(dir string) (*Suite, error) {
	entries, err := builtinTasks.ReadDir("builtin")
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		name := strings.TrimSuffix(e.Name(), ".txtar")
		data, err := builtinTasks.ReadFile(path.Join("builtin", e.Name()))
		if err != nil {
			return nil, err
		}
		if err := writeArchive(filepath.Join(dir, name), txtar.Parse(data)); err != nil {
			return nil, fmt.Errorf("built-in task %s: %w", name, err)
		}
	}
	s, err := LoadSuite(dir)
	if err != nil {
		return nil, err
	}
	s.Name = BuiltinName
	return s, nil
}

// writeArchive writes the files of a into dir.
func writeArchive(dir string, a *txtar.Archive) error {
	for _, f := range a.Files {
		name := filepath.FromSlash(f.Name)
		if !filepath.IsLocal(name) {
			return fmt.Errorf("%s: not a path inside the task", f.Name)
		}
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			return err
		}
	}
	return nil
}
