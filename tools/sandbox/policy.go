package sandbox

import (
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Mode is how much a command is confined.
type Mode string

const (
	// WorkspaceWrite: read everywhere but the denied paths, write only in
	// the workspace and the writable directories, no network unless the
	// policy grants it.
	WorkspaceWrite Mode = "workspace-write"
	// ReadOnly: as WorkspaceWrite, but no writes at all except to
	// /dev/null and the like.
	ReadOnly Mode = "read-only"
	// Off: no confinement. The command still runs through the helper,
	// which kills whatever it leaves behind.
	Off Mode = "off"
)

// ParseMode parses a mode name as written in the config or on the command
// line.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case WorkspaceWrite, ReadOnly, Off:
		return m, nil
	}
	return "", fmt.Errorf("unknown sandbox mode %q (want %s, %s or %s)", s, WorkspaceWrite, ReadOnly, Off)
}

// Policy is what a command may do. Paths are absolute.
type Policy struct {
	Mode Mode
	// Workspace is the directory the command runs in, writable in
	// WorkspaceWrite mode unless ReadOnlyWorkspace.
	Workspace string
	// ReadOnlyWorkspace, in WorkspaceWrite mode, keeps the workspace from
	// being written while the writable directories and the temp
	// directory stay writable: a program that only reads the project
	// (a language server) but keeps caches and temporary files.
	ReadOnlyWorkspace bool
	// Writable are further directories writable in WorkspaceWrite mode
	// (temp and cache directories). Those missing are created.
	Writable []string
	// TempDir, in WorkspaceWrite mode, is a directory of the commands'
	// own, writable, which they get as TMPDIR and GOTMPDIR: it is
	// writable wherever it lies, while the temp directory itself may
	// only be listable (when it holds the home directory, whose secrets
	// are denied). The helper makes it when it is missing, and then
	// removes it after the command; one made beforehand stays.
	TempDir string
	// ReadDeny are paths the command can neither read nor write, even
	// beneath a writable directory.
	ReadDeny []string
	// KeepReadOnly are paths the command may read but not write even
	// beneath a writable directory that holds them (the home directory,
	// beneath a temp directory): only a writable directory within one
	// (the cache in the home directory) makes part of it writable.
	KeepReadOnly []string
	// Protected are paths beneath writable directories that the command
	// may change while it runs but not keep: once all its processes are
	// gone, what it changed is put back (what it created is removed,
	// unless known harmless) and reported as blocked.
	Protected []string
	// EnvDeny are the environment variables kept from the command, by
	// name or by pattern ("*_TOKEN": "*" stands for any run of
	// characters; case is ignored), unless EnvPass names them too. Not
	// in mode Off.
	EnvDeny, EnvPass []string
	// Network allows every socket. Without it the command can make no
	// TCP, UDP or other IP socket (loopback included: without a network
	// namespace nothing can tell loopback from the rest), and no Unix
	// socket where the kernel cannot limit them to the writable
	// directories.
	Network bool
}

// Clean returns p with every path cleaned (no trailing slash, no ".."),
// as the policy's comparisons of paths assume.
func (p Policy) Clean() Policy {
	clean := func(paths []string) []string {
		out := make([]string, len(paths))
		for i, path := range paths {
			out[i] = filepath.Clean(path)
		}
		return out
	}
	p.Workspace = filepath.Clean(p.Workspace)
	if p.TempDir != "" {
		p.TempDir = filepath.Clean(p.TempDir)
	}
	p.Writable, p.ReadDeny, p.KeepReadOnly, p.Protected = clean(p.Writable), clean(p.ReadDeny), clean(p.KeepReadOnly), clean(p.Protected)
	return p
}

func (p Policy) validate() error {
	if _, err := ParseMode(string(p.Mode)); err != nil {
		return err
	}
	if !filepath.IsAbs(p.Workspace) {
		return fmt.Errorf("sandbox workspace %q is not an absolute path", p.Workspace)
	}
	if p.TempDir != "" && !filepath.IsAbs(p.TempDir) {
		return fmt.Errorf("sandbox temp directory %q is not an absolute path", p.TempDir)
	}
	for _, list := range [][]string{p.Writable, p.ReadDeny, p.KeepReadOnly, p.Protected} {
		for _, path := range list {
			if !filepath.IsAbs(path) {
				return fmt.Errorf("sandbox path %q is not absolute", path)
			}
		}
	}
	return nil
}

// Guarded returns the protected path that keeps path (absolute) from
// being changed for good, or "" when none does: path itself when it is
// protected, or a protected path it lies beneath that holds no other (one
// that holds others, .git, is only kept a directory: what is in it is
// free but for them). Case is ignored: on a case-insensitive file system
// .GIT/config is .git/config. In mode Off nothing is guarded.
//
// It is for writes made outside the sandbox, by lathe's own process: they
// can be refused before they happen, where a command's are put back.
func (p Policy) Guarded(path string) string {
	if p.Mode == Off {
		return ""
	}
	path = strings.ToLower(filepath.Clean(path))
	for _, prot := range p.Protected {
		low := strings.ToLower(prot)
		if path == low || within(path, low) && !p.holdsProtected(prot) {
			return prot
		}
	}
	return ""
}

// holdsProtected reports whether the protected path prot holds others:
// it is then kept only what it is, a directory, while they are kept whole.
func (p Policy) holdsProtected(prot string) bool {
	for _, other := range p.Protected {
		if other != prot && within(other, prot) {
			return true
		}
	}
	return false
}

// secretPaths are read-denied, relative to the home directory: keys,
// tokens and credentials that no build or test needs.
var secretPaths = []string{
	".ssh", ".gnupg", ".aws", ".azure", ".config/gcloud", ".config/gh", ".kube",
	".netrc", ".git-credentials", ".docker/config.json", ".pypirc",
	".cargo/credentials", ".cargo/credentials.toml", ".password-store", ".vault-token",
	".ollama/id_ed25519",
	// Shell and interpreter histories: the commands typed, passwords
	// among them.
	".bash_history", ".zsh_history", ".zhistory", ".histfile", ".sh_history",
	".local/share/fish/fish_history", ".python_history", ".node_repl_history",
	".psql_history", ".mysql_history", ".sqlite_history", ".irb_history", ".lesshst",
}

// DefaultPolicy returns the WorkspaceWrite policy for commands run in
// workspace: temp and build caches writable, secrets and lathe's own
// directories (latheDirs: its database, config and log) unreadable,
// credentials kept out of the environment, no network, and the git hooks
// and config of the workspace's repository protected.
//
// home is the user's home directory; getenv reads the environment lathe
// started with (TMPDIR, XDG_CACHE_HOME, XDG_CONFIG_HOME, GOCACHE,
// GOMODCACHE, GOPATH, HISTFILE). It looks at the file system only to find the git
// repository and which optional caches exist.
func DefaultPolicy(workspace, home string, getenv func(string) string, latheDirs ...string) Policy {
	workspace = filepath.Clean(workspace)
	p := Policy{Mode: WorkspaceWrite, Workspace: workspace}
	abs := func(path string) string {
		if filepath.IsAbs(path) {
			return filepath.Clean(path)
		}
		return ""
	}
	inHome := func(rel string) string {
		if home == "" {
			return ""
		}
		return filepath.Join(home, rel)
	}
	tmp := cmpOr(abs(getenv("TMPDIR")), "/tmp")
	cache := cmpOr(abs(getenv("XDG_CACHE_HOME")), inHome(".cache"))
	p.Writable = append(p.Writable, tmp, cache, abs(getenv("GOCACHE")), goModCache(home, getenv))
	p.TempDir = filepath.Join(tmp, "lathe-"+rand.Text()[:12])
	for _, opt := range []string{inHome(".npm"), inHome(".cargo/registry")} {
		if isDir(opt) {
			p.Writable = append(p.Writable, opt)
		}
	}
	for _, rel := range secretPaths {
		p.ReadDeny = append(p.ReadDeny, inHome(rel))
	}
	// A temp directory that holds the home directory (HOME=/tmp/home)
	// must not make ~/.bashrc writable.
	p.KeepReadOnly = tidy([]string{home})
	if xdg := abs(getenv("XDG_CONFIG_HOME")); xdg != "" {
		p.ReadDeny = append(p.ReadDeny, filepath.Join(xdg, "gcloud"), filepath.Join(xdg, "gh"))
	}
	p.ReadDeny = append(p.ReadDeny, abs(getenv("HISTFILE")))
	p.EnvDeny = CredentialVars()
	for _, d := range latheDirs {
		p.ReadDeny = append(p.ReadDeny, abs(d))
	}
	p.Writable = tidy(p.Writable)
	git := findGit(workspace)
	p.Protected = git.protected(readGitConfigs(git, home, getenv))
	for _, dir := range foreignGitDirs(workspace, append([]string{workspace}, p.Writable...)) {
		// One that is not there needs no more than itself: one made is
		// removed whole.
		if dot := filepath.Join(dir, ".git"); isDir(dot) {
			p.Protected = append(p.Protected, dotGit(dot)...)
		} else {
			p.Protected = append(p.Protected, dot)
		}
	}
	if !within(git.dir, workspace) && (home == "" || !within(home, git.top)) {
		// A linked worktree or a workspace below the repository's top:
		// commits write to the git directories outside the workspace.
		// (Not for a repository holding the whole home directory.)
		p.Writable = tidy(append(p.Writable, git.dir, git.common))
	}
	p.Protected = tidy(p.Protected)
	p.ReadDeny = tidy(p.ReadDeny)
	return p
}

// writableRoots are the directories a WorkspaceWrite command may write
// beneath: the workspace, the writable directories and its temp
// directory.
func (p Policy) writableRoots() []string {
	var roots []string
	if !p.ReadOnlyWorkspace {
		roots = append(roots, p.Workspace)
	}
	roots = append(roots, p.Writable...)
	if p.TempDir != "" {
		roots = append(roots, p.TempDir)
	}
	return roots
}

// keptReadOnly returns the paths kept read-only that lie strictly beneath
// the writable root w: its grant leaves them out. A read-only workspace
// is one of them.
func (p Policy) keptReadOnly(w string) []string {
	kept := p.KeepReadOnly
	if p.ReadOnlyWorkspace {
		kept = append(slices.Clip(kept), p.Workspace)
	}
	var out []string
	for _, k := range kept {
		if k != w && within(k, w) {
			out = append(out, k)
		}
	}
	return out
}

// ListOnly returns the writable directories in which nothing new can be
// made directly, being on the way to a path left out of them (see
// landlock.Grant): from each writable root down to that path's parent.
func (p Policy) ListOnly() []string {
	var out []string
	for _, w := range p.writableRoots() {
		for _, d := range append(slices.Clone(p.ReadDeny), p.keptReadOnly(w)...) {
			if d == w || !within(d, w) {
				continue
			}
			for dir := filepath.Dir(d); within(dir, w); dir = filepath.Dir(dir) {
				out = append(out, dir)
				if dir == w {
					break
				}
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// foreignGitDirs are the writable directories where a .git made by a
// command would make git treat what is beneath as a repository, outside
// the workspace: each writable root but the workspace, and each
// directory above the workspace that a writable root holds (the temp
// directory, for a workspace in it). git status run there, or in the
// workspace below it, would then run what that .git/config names.
func foreignGitDirs(workspace string, roots []string) []string {
	var out []string
	for _, r := range roots {
		if !within(r, workspace) {
			out = append(out, r)
		}
		for d := filepath.Dir(workspace); within(d, r) && d != workspace; d = filepath.Dir(d) {
			out = append(out, d)
			if d == r {
				break
			}
		}
	}
	return tidy(out)
}

// Reachable returns the protected paths beneath a writable directory:
// those a command could change, and the helper keeps.
func (p Policy) Reachable() []string {
	var out []string
	for _, prot := range p.Protected {
		if slices.ContainsFunc(p.writableRoots(), func(r string) bool { return prot != r && within(prot, r) }) {
			out = append(out, prot)
		}
	}
	return out
}

// goModCache is where the go command keeps downloaded modules.
func goModCache(home string, getenv func(string) string) string {
	if v := getenv("GOMODCACHE"); filepath.IsAbs(v) {
		return filepath.Clean(v)
	}
	if first, _, _ := strings.Cut(getenv("GOPATH"), string(filepath.ListSeparator)); filepath.IsAbs(first) {
		return filepath.Join(first, "pkg", "mod")
	}
	if home == "" {
		return ""
	}
	return filepath.Join(home, "go", "pkg", "mod")
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

// tidy drops empty entries and duplicates, keeping the first.
func tidy(paths []string) []string {
	var out []string
	for _, p := range paths {
		if p != "" && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

// within reports whether path is dir or lies beneath it, both clean and
// absolute.
func within(path, dir string) bool {
	switch dir {
	case "":
		return false
	case "/":
		return strings.HasPrefix(path, "/")
	}
	return path == dir || len(path) > len(dir) && path[len(dir)] == '/' && path[:len(dir)] == dir
}

// ErrUnsupported is returned when a command cannot be confined as its
// policy asks: the kernel lacks Landlock or seccomp, or this is not Linux.
var ErrUnsupported = errors.New("the sandbox is not supported here")
