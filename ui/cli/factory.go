package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/spf13/pflag"

	"lathe/config"
	"lathe/orchestrator/session/sqlite"
	"lathe/prompts"
	"lathe/prompts/human"
)

// Factory is what every command is made with: the process's streams and
// environment, the working directory, and the config and the session
// database, each made when first asked for and shared by what asks again.
type Factory struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer
	Env    env
	// Dir is the working directory, absolute once the command line is
	// parsed (-C, else the current one); DirSet says -C was given.
	Dir    string
	DirSet bool
	// Flags are the settings the command line gives for this run, over
	// the config files: a command binds those of its flags that are
	// settings here.
	Flags config.Flags

	loaded *config.Loaded
	err    error
	db     *sqlite.DB
	temp   string // a directory removed once the command ends (--demo's)
}

// dirFlag declares -C, which every command but help takes.
func (f *Factory) dirFlag(fs *pflag.FlagSet) {
	fs.StringVarP(&f.Dir, "dir", "C", ".", "")
}

// Config is the config of the working directory, loaded once: the
// defaults, the user's file, the project's, the environment, the flags.
func (f *Factory) Config() (config.Loaded, error) {
	if f.loaded == nil && f.err == nil {
		loaded, err := config.Load(config.Sources{Getenv: f.Env.get, ProjectDir: f.Dir, Flags: f.Flags})
		f.loaded, f.err = &loaded, err
	}
	return *f.loaded, f.err
}

// StorePath is the session database's file in the data directory.
func (f *Factory) StorePath() (string, error) {
	dir := config.DataDir(f.Env.get)
	if dir == "" {
		return "", errors.New("no data directory: set XDG_DATA_HOME or HOME")
	}
	return filepath.Join(dir, "lathe.db"), nil
}

// Saved is the session database when there is one: nil, and no error,
// when no session was ever saved, so that looking creates nothing.
func (f *Factory) Saved(ctx context.Context) (*sqlite.DB, error) {
	if f.db != nil {
		return f.db, nil
	}
	path, err := f.StorePath()
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return f.open(ctx, path)
}

// Store is the session database, created when there is none.
func (f *Factory) Store(ctx context.Context) (*sqlite.DB, error) {
	if f.db != nil {
		return f.db, nil
	}
	path, err := f.StorePath()
	if err != nil {
		return nil, err
	}
	return f.open(ctx, path)
}

func (f *Factory) open(ctx context.Context, path string) (*sqlite.DB, error) {
	db, err := sqlite.Open(ctx, path, storeOptions())
	if err != nil {
		return nil, err
	}
	f.db = db
	return db, nil
}

// storeOptions are the session database's: lathe's notes are told apart
// from what the user wrote.
func storeOptions() sqlite.Options { return sqlite.Options{NotePrefix: prompts.NotePrefix} }

// close releases what the factory made.
func (f *Factory) close() {
	if f.db != nil {
		f.db.Close()
	}
	if f.temp != "" {
		os.RemoveAll(f.temp)
	}
}

// workingDir makes -C's directory absolute, and checks that it is one.
func (f *Factory) workingDir() error {
	abs, err := filepath.Abs(f.Dir)
	if err != nil {
		return usagef("-C %s: %v", f.Dir, err)
	}
	info, err := os.Stat(abs)
	if err != nil {
		return usagef("-C %s: no such directory", f.Dir)
	}
	if !info.IsDir() {
		return usagef("-C %s: not a directory", f.Dir)
	}
	f.Dir = abs
	return nil
}

// warn tells the user of a problem that does not stop lathe, on stderr,
// with its control characters escaped (it may quote a project's file).
func (f *Factory) warn(text string) {
	fmt.Fprintf(f.ErrOut, "lathe: warning: %s\n", human.Visible(text))
}
