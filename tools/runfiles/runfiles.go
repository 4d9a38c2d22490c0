// Package runfiles finds the files of a project that a command line would
// run, and digests them, so that trust given to a program started outside
// the sandbox (an MCP server, and as well a hook or a language server) can
// be tied to what it runs: a sandboxed command may rewrite any file of
// the project, and the next start would run it unconfined.
//
// What counts, beneath the project's root (see Files): the program, when
// it is a path or found on a PATH entry there; the script an interpreter
// is given (sh, python, node, ruby...); the module python -m names,
// searched as python would (its working directory first, then
// PYTHONPATH), a package whole; the package npx and the like run from the
// project's node_modules; the project files uv run, poetry run, npm run
// and the like read (pyproject.toml, package.json and its script); the
// package go run builds; and every argument naming a file there that
// looks like code (executable, or a source file by its extension). What
// that code imports from elsewhere in the project is not followed.
package runfiles

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// Command is a command line as it would start.
type Command struct {
	// Root is the project: only what lies beneath it counts.
	Root string
	// Dir is where the command starts (absolute).
	Dir string
	// Argv is the program and its arguments.
	Argv []string
	// Getenv reads the command's environment (PATH, PYTHONPATH,
	// PYTHONSAFEPATH); nil reads an empty one.
	Getenv func(string) string
}

// maxDepth bounds how deep runners that start other command lines
// (uv run, env, npm run's script) are followed.
const maxDepth = 4

// Files returns the paths beneath c.Root that running c would run or
// load as code, absolute and sorted: files, directories (a package, run
// whole) and paths that do not exist yet where the command line names a
// program or script (made later, they would run).
func Files(c Command) []string {
	if c.Getenv == nil {
		c.Getenv = func(string) string { return "" }
	}
	c.Root, c.Dir = filepath.Clean(c.Root), filepath.Clean(c.Dir)
	f := &finder{c: c}
	f.command(c.Dir, c.Argv, 0)
	slices.Sort(f.out)
	return slices.Compact(f.out)
}

type finder struct {
	c   Command
	out []string
}

// add records path when it lies beneath the root, and where it leads, if
// a symlink leading to another path beneath the root.
func (f *finder) add(path string) {
	path = filepath.Clean(path)
	if !within(path, f.c.Root) {
		return
	}
	f.out = append(f.out, path)
	if real, err := filepath.EvalSymlinks(path); err == nil && real != path && within(real, f.c.Root) {
		f.out = append(f.out, real)
	}
}

// abs is name taken from dir.
func abs(dir, name string) string {
	if filepath.IsAbs(name) {
		return filepath.Clean(name)
	}
	return filepath.Join(dir, name)
}

// command finds what argv, started in dir, runs.
func (f *finder) command(dir string, argv []string, depth int) {
	if len(argv) == 0 || depth > maxDepth {
		return
	}
	if prog := f.program(dir, argv[0]); prog != "" {
		f.add(prog)
	}
	name, args := filepath.Base(argv[0]), argv[1:]
	switch {
	case python.MatchString(name):
		f.python(dir, args)
	case name == "node" || name == "nodejs" || name == "tsx" || name == "ts-node" || name == "ts-node-esm":
		f.node(dir, args)
	case name == "deno" || name == "bun":
		f.denoBun(dir, name, args, depth)
	case scriptInterpreters[name]:
		f.script(dir, args, name)
	case name == "npx" || name == "pnpx" || name == "bunx":
		f.npx(dir, args)
	case name == "npm" || name == "pnpm" || name == "yarn":
		f.packageManager(dir, args, depth)
	case projectRunners[name]:
		f.projectRunner(dir, name, args, depth)
	case name == "go":
		f.goRun(dir, args)
	case name == "cargo":
		f.cargoRun(dir, args)
	case name == "java":
		f.java(dir, args)
	case name == "env":
		f.env(dir, args, depth)
	}
	f.codeArgs(dir, args)
}

// program is where argv[0] is: a path taken from dir, or the first match
// on PATH (a relative entry taken from dir, as execvp does); "" when not
// found.
func (f *finder) program(dir, name string) string {
	if strings.Contains(name, "/") {
		return abs(dir, name)
	}
	for _, p := range filepath.SplitList(f.c.Getenv("PATH")) {
		if p == "" {
			p = "."
		}
		cand := abs(dir, filepath.Join(p, name))
		if fi, err := os.Stat(cand); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return cand
		}
	}
	return ""
}

var python = regexp.MustCompile(`^(python|pypy)[0-9.]*$`)

// scriptInterpreters run the first argument that is not an option as a
// script.
var scriptInterpreters = map[string]bool{
	"sh": true, "bash": true, "zsh": true, "dash": true, "ksh": true, "fish": true,
	"ruby": true, "perl": true, "php": true, "lua": true, "luajit": true, "Rscript": true,
	"julia": true, "tclsh": true, "elixir": true, "pwsh": true,
}

// inline are the options by which an interpreter takes its program as
// the option's text: no script file then.
var inline = map[string][]string{
	"perl": {"-e", "-E"}, "php": {"-r"}, "pwsh": {"-c", "-Command"},
	"ruby": {"-e"}, "lua": {"-e"}, "luajit": {"-e"}, "Rscript": {"-e"}, "julia": {"-e"}, "elixir": {"-e"},
}

// script finds the script an interpreter runs: the first argument that
// is not an option, unless an option gives the program inline.
func (f *finder) script(dir string, args []string, name string) {
	flags, ok := inline[name]
	if !ok {
		flags = []string{"-c"} // the shells
	}
	for i, a := range args {
		switch {
		case a == "--":
			if i+1 < len(args) {
				f.add(abs(dir, args[i+1]))
			}
			return
		case slices.Contains(flags, a):
			return
		case strings.HasPrefix(a, "-"):
		default:
			f.add(abs(dir, a))
			return
		}
	}
}

// python finds what python runs: a script, or a module searched as
// python searches it (-m).
func (f *finder) python(dir string, args []string) {
	safe := f.c.Getenv("PYTHONSAFEPATH") != ""
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-m" && i+1 < len(args):
			f.pythonModule(dir, args[i+1], safe)
			return
		case strings.HasPrefix(a, "-m") && len(a) > 2:
			f.pythonModule(dir, a[2:], safe)
			return
		case a == "-c" || a == "-" || a == "--":
			return
		case a == "-W" || a == "-X" || a == "--check-hash-based-pycs":
			i++
		case strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--"):
			if strings.ContainsAny(a[1:], "IP") {
				safe = true
			}
		case strings.HasPrefix(a, "-"):
		default:
			f.add(abs(dir, a))
			return
		}
	}
}

// pythonModule finds module mod on python's path: the working directory
// first (unless safe: -P, -I, PYTHONSAFEPATH), then PYTHONPATH. The top
// package counts whole.
func (f *finder) pythonModule(dir, mod string, safe bool) {
	top, _, _ := strings.Cut(mod, ".")
	var path []string
	if !safe {
		path = append(path, dir)
	}
	for _, p := range filepath.SplitList(f.c.Getenv("PYTHONPATH")) {
		if p != "" {
			path = append(path, abs(dir, p))
		}
	}
	for _, d := range path {
		if isDir(filepath.Join(d, top)) {
			f.add(filepath.Join(d, top))
			return
		}
		for _, ext := range []string{".py", ".pyc", ".pyw"} {
			if exists(filepath.Join(d, top+ext)) {
				f.add(filepath.Join(d, top+ext))
				return
			}
		}
	}
}

// CwdOnImportPath reports whether argv is python taking its program from
// -m or -c, which puts the working directory first on its import path:
// whatever the program imports, a file of that name there comes first.
// PYTHONSAFEPATH=1 (Python 3.11) leaves it off.
func CwdOnImportPath(argv []string) bool {
	if len(argv) == 0 || !python.MatchString(filepath.Base(argv[0])) {
		return false
	}
	for i := 1; i < len(argv); i++ {
		switch a := argv[i]; {
		case a == "-c" || strings.HasPrefix(a, "-m"):
			return true
		case a == "-W" || a == "-X":
			i++
		case !strings.HasPrefix(a, "-"):
			return false // a script: its own directory comes first
		}
	}
	return false
}

// nodeValueFlags take a value; -r, --require, --import and the loaders
// take a module, which counts when it is a path.
var nodeValueFlags = map[string]bool{
	"-r": true, "--require": true, "--import": true, "--loader": true, "--experimental-loader": true,
	"-C": true, "--conditions": true, "--env-file": true, "--title": true,
}

// node finds the script node runs, and the modules it preloads by path.
func (f *finder) node(dir string, args []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-e" || a == "--eval" || a == "-p" || a == "--print" || a == "-":
			return
		case nodeValueFlags[a] && i+1 < len(args):
			if a != "-C" && a != "--conditions" && a != "--title" && isPath(args[i+1]) {
				f.nodeModule(abs(dir, args[i+1]))
			}
			i++
		case strings.HasPrefix(a, "-"):
		default:
			f.nodeModule(abs(dir, a))
			return
		}
	}
}

// nodeModule adds what node loads for path: the file, with one of the
// extensions node tries; for a directory, its package.json and the main
// file it names, else its index.js.
func (f *finder) nodeModule(path string) {
	if isDir(path) {
		pj := filepath.Join(path, "package.json")
		if main := packageJSONMain(pj); main != "" {
			f.add(pj)
			path = filepath.Join(path, main)
		} else {
			path = filepath.Join(path, "index")
		}
	}
	for _, ext := range []string{"", ".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".json"} {
		if exists(path + ext) {
			f.add(path + ext)
			return
		}
	}
	f.add(path) // made later, it would run
}

// denoBun: "deno run [options] script", "bun [run] script", "bun x pkg".
func (f *finder) denoBun(dir, name string, args []string, depth int) {
	if len(args) > 0 && (args[0] == "run" || name == "deno" && args[0] == "serve") {
		args = args[1:]
	}
	if name == "bun" && len(args) > 0 && args[0] == "x" {
		f.npx(dir, args[1:])
		return
	}
	f.node(dir, args)
}

// npx finds the package npx and the like run from the project: its bin
// in node_modules/.bin, here or above, and the package it belongs to.
func (f *finder) npx(dir string, args []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-c" || a == "--call":
			return
		case a == "-p" || a == "--package":
			i++
			if i < len(args) {
				f.nodeBin(dir, args[i])
			}
		case strings.HasPrefix(a, "--package="):
			f.nodeBin(dir, strings.TrimPrefix(a, "--package="))
		case strings.HasPrefix(a, "-"):
		default:
			f.nodeBin(dir, a)
			return
		}
	}
}

// nodeBin adds the bin named after pkg (or pkg itself, a path) in the
// nearest node_modules/.bin, and the package directory it leads into.
func (f *finder) nodeBin(dir, pkg string) {
	if isPath(pkg) {
		f.add(abs(dir, pkg))
		return
	}
	name := pkg
	if at := strings.LastIndexByte(name, '@'); at > 0 {
		name = name[:at] // a version
	}
	bin := name[strings.LastIndexByte(name, '/')+1:]
	for d := dir; within(d, f.c.Root); d = filepath.Dir(d) {
		modules := filepath.Join(d, "node_modules")
		link, pkg := filepath.Join(modules, ".bin", bin), filepath.Join(modules, name)
		if exists(link) || isDir(pkg) {
			f.add(link)
			if isDir(pkg) {
				f.add(pkg)
			}
			// The bin leads into the package it belongs to, which may
			// have another name (tsc is typescript's).
			if real, err := filepath.EvalSymlinks(link); err == nil && real != link {
				if top := packageOf(modules, real); top != "" {
					f.add(top)
				}
			}
			return
		}
		if d == f.c.Root {
			return
		}
	}
}

// packageOf is the package directory in modules that path lies in, ""
// when none.
func packageOf(modules, path string) string {
	rel, err := filepath.Rel(modules, path)
	if err != nil || rel == "." || strings.HasPrefix(rel, "..") || strings.HasPrefix(rel, ".bin") {
		return ""
	}
	parts := strings.SplitN(rel, string(filepath.Separator), 3)
	top := parts[0]
	if strings.HasPrefix(top, "@") && len(parts) > 1 {
		top = filepath.Join(top, parts[1])
	}
	return filepath.Join(modules, top)
}

// packageManager: npm, pnpm and yarn run a package.json script ("npm
// run x", "npm start", "yarn x"), or a bin ("npm exec", "pnpm dlx").
func (f *finder) packageManager(dir string, args []string, depth int) {
	var words []string
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			words = append(words, a)
		}
	}
	if len(words) == 0 {
		return
	}
	switch words[0] {
	case "exec", "x", "dlx":
		f.npx(dir, args[slices.Index(args, words[0])+1:])
		return
	case "run", "run-script":
		if len(words) < 2 {
			return
		}
		words = words[1:]
	}
	f.packageScript(dir, words[0], depth)
}

// packageScript adds the nearest package.json and what its script name
// runs, when it is a plain command line.
func (f *finder) packageScript(dir, name string, depth int) {
	for d := dir; within(d, f.c.Root); d = filepath.Dir(d) {
		pj := filepath.Join(d, "package.json")
		if !exists(pj) {
			if d == f.c.Root {
				return
			}
			continue
		}
		f.add(pj)
		// A script runs with node_modules/.bin on its PATH.
		for _, argv := range commandLines(packageJSONScript(pj, name)) {
			if !strings.Contains(argv[0], "/") {
				f.nodeBin(d, argv[0])
			}
			f.command(d, argv, depth+1)
		}
		return
	}
}

// projectRunners run a command line in the project's environment, which
// its project file describes.
var projectRunners = map[string]bool{"uv": true, "poetry": true, "pipenv": true, "pdm": true, "hatch": true, "rye": true}

// projectFiles are the files that make a Python project's environment.
var projectFiles = []string{"pyproject.toml", "uv.lock", "poetry.lock", "Pipfile", "Pipfile.lock", "pdm.lock", "setup.py", "setup.cfg", "requirements.txt"}

// runnerValueFlags are their options that take a value.
var runnerValueFlags = map[string]bool{
	"--project": true, "--directory": true, "--with": true, "--python": true, "-p": true, "--package": true,
	"--env-file": true, "--extra": true, "--group": true, "--index": true, "--from": true, "-C": true,
}

// projectRunner: "uv run [options] CMD...", and the same for poetry,
// pipenv, pdm, hatch and rye: the project files count, and what CMD runs,
// a name of the project's environment (.venv/bin) included.
func (f *finder) projectRunner(dir, name string, args []string, depth int) {
	if len(args) == 0 || args[0] != "run" {
		return
	}
	args = args[1:]
	project := dir
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case (a == "--project" || a == "--directory" || a == "-C") && i+1 < len(args):
			project = abs(dir, args[i+1])
			i++
		case runnerValueFlags[a]:
			i++
		case a == "--":
		case strings.HasPrefix(a, "-"):
		default:
			f.projectEnv(project)
			rest := slices.Clone(args[i:])
			if !strings.Contains(rest[0], "/") {
				if bin := f.venvBin(project, rest[0]); bin != "" {
					rest[0] = bin
				}
			}
			f.command(dir, rest, depth+1)
			return
		}
	}
	f.projectEnv(project)
}

// projectEnv adds the project files of the nearest project at or above
// dir.
func (f *finder) projectEnv(dir string) {
	for d := dir; within(d, f.c.Root); d = filepath.Dir(d) {
		found := false
		for _, name := range projectFiles {
			if exists(filepath.Join(d, name)) {
				f.add(filepath.Join(d, name))
				found = true
			}
		}
		if found || d == f.c.Root {
			return
		}
	}
}

// venvBin is name in the project's .venv/bin, "" when not there.
func (f *finder) venvBin(dir, name string) string {
	for d := dir; within(d, f.c.Root); d = filepath.Dir(d) {
		if bin := filepath.Join(d, ".venv", "bin", name); exists(bin) {
			return bin
		}
		if d == f.c.Root {
			break
		}
	}
	return ""
}

// goRun: "go run [flags] package|files [args]": the package's directory
// (its .go files), and the module's go.mod and go.sum.
func (f *finder) goRun(dir string, args []string) {
	if len(args) == 0 || args[0] != "run" {
		return
	}
	for _, a := range args[1:] {
		if strings.HasPrefix(a, "-") {
			continue
		}
		target := abs(dir, a)
		switch {
		case strings.HasSuffix(a, ".go"):
			f.add(target)
			continue
		case !isPath(a):
			return // a package path: from the module cache, or another module
		}
		// The package is the directory's .go files, not those below.
		sources, _ := filepath.Glob(filepath.Join(target, "*.go"))
		for _, src := range sources {
			f.add(src)
		}
		for d := target; within(d, f.c.Root); d = filepath.Dir(d) {
			if exists(filepath.Join(d, "go.mod")) {
				f.add(filepath.Join(d, "go.mod"))
				f.add(filepath.Join(d, "go.sum"))
				break
			}
			if d == f.c.Root {
				break
			}
		}
		return
	}
}

// cargoRun: "cargo run" builds the crate: its manifest and sources.
func (f *finder) cargoRun(dir string, args []string) {
	if len(args) == 0 || args[0] != "run" {
		return
	}
	for d := dir; within(d, f.c.Root); d = filepath.Dir(d) {
		if exists(filepath.Join(d, "Cargo.toml")) {
			for _, name := range []string{"Cargo.toml", "Cargo.lock", "src", "build.rs"} {
				f.add(filepath.Join(d, name))
			}
			return
		}
		if d == f.c.Root {
			return
		}
	}
}

// java: "java -jar x.jar" runs the jar.
func (f *finder) java(dir string, args []string) {
	for i := 0; i+1 < len(args); i++ {
		if args[i] == "-jar" {
			f.add(abs(dir, args[i+1]))
			return
		}
	}
}

// env: "env [-i] [NAME=value...] program args".
func (f *finder) env(dir string, args []string, depth int) {
	for i, a := range args {
		if strings.HasPrefix(a, "-") || strings.Contains(a, "=") {
			continue
		}
		f.command(dir, args[i:], depth+1)
		return
	}
}

// codeExtensions are the extensions of files an argument naming one
// most likely hands to something that runs it.
var codeExtensions = map[string]bool{
	".sh": true, ".bash": true, ".zsh": true, ".fish": true, ".py": true, ".pyc": true, ".pyw": true,
	".js": true, ".mjs": true, ".cjs": true, ".ts": true, ".mts": true, ".cts": true, ".jsx": true, ".tsx": true,
	".rb": true, ".pl": true, ".pm": true, ".php": true, ".lua": true, ".r": true, ".jl": true, ".tcl": true,
	".exs": true, ".ex": true, ".go": true, ".rs": true, ".java": true, ".kt": true, ".kts": true,
	".jar": true, ".class": true, ".wasm": true, ".so": true, ".dll": true, ".dylib": true, ".ps1": true,
}

// codeArgs adds every argument (or --option=value's value) that names an
// existing file beneath the root that looks like code: executable, or a
// source file by its extension. A data file (a database, a config) does
// not count, so that a server that writes its own is not asked about
// again.
func (f *finder) codeArgs(dir string, args []string) {
	for _, a := range args {
		if _, v, ok := strings.Cut(a, "="); ok && strings.HasPrefix(a, "-") {
			a = v
		}
		if a == "" || strings.HasPrefix(a, "-") {
			continue
		}
		path := abs(dir, a)
		if !within(path, f.c.Root) {
			continue
		}
		fi, err := os.Stat(path)
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		if fi.Mode()&0o111 != 0 || codeExtensions[strings.ToLower(filepath.Ext(path))] {
			f.add(path)
		}
	}
}

// isPath reports whether a module or package argument is a path rather
// than a name: it starts with ., / or ~.
func isPath(s string) bool {
	return strings.HasPrefix(s, "./") || strings.HasPrefix(s, "../") || strings.HasPrefix(s, "/") || s == ".." || s == "."
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

// within reports whether path is dir or lies beneath it.
func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../") && !filepath.IsAbs(rel)
}
