package runfiles

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// project makes files beneath a temporary root: path → content; a path
// ending in "*" is made executable (without the star), one ending in "/"
// is a directory.
func project(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for name, content := range files {
		mode := os.FileMode(0o644)
		if strings.HasSuffix(name, "*") {
			name, mode = strings.TrimSuffix(name, "*"), 0o755
		}
		path := filepath.Join(root, name)
		if strings.HasSuffix(name, "/") {
			if err := os.MkdirAll(path, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), mode); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestFiles(t *testing.T) {
	root := project(t, map[string]string{
		"mcp.sh*":                            "#!/bin/sh\n",
		"server.js":                          "",
		"srv/package.json":                   `{"main": "lib/main.js"}`,
		"srv/lib/main.js":                    "",
		"tools/__init__.py":                  "",
		"tools/mcp.py":                       "",
		"rtmcp.py":                           "",
		"run.sh":                             "",
		"node_modules/.bin/some-server*":     "",
		"node_modules/some-server/index.js":  "",
		"node_modules/@scope/srv/bin/srv.js": "",
		"pyproject.toml":                     "",
		"uv.lock":                            "",
		".venv/bin/myserver*":                "",
		"package.json":                       `{"scripts": {"start": "tsc && node dist/index.js --port 1", "dev": "x $(y)"}}`,
		"dist/index.js":                      "",
		"node_modules/typescript/bin/tsc*":   "",
		"cmd/srv/main.go":                    "",
		"cmd/srv/util.go":                    "",
		"cmd/srv/sub/other.go":               "",
		"go.mod":                             "",
		"go.sum":                             "",
		"bin/srv*":                           "",
		"test.db":                            "",
		"config.json":                        "",
		"plugin.js":                          "",
		"elsewhere/":                         "",
	})
	for link, target := range map[string]string{"srv": "../@scope/srv/bin/srv.js", "tsc": "../typescript/bin/tsc"} {
		if err := os.Symlink(target, filepath.Join(root, "node_modules/.bin", link)); err != nil {
			t.Fatal(err)
		}
	}
	outside := project(t, map[string]string{"lib/rtmcp.py": "", "fakemcp*": ""})
	env := func(kv ...string) func(string) string {
		m := map[string]string{"PATH": outside}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return func(k string) string { return m[k] }
	}
	for _, tc := range []struct {
		name string
		argv string
		env  func(string) string
		want []string
	}{
		{"program in the project", "./mcp.sh", nil, []string{"mcp.sh"}},
		{"node script", "node server.js", nil, []string{"server.js"}},
		{"node script without extension", "node server --flag", nil, []string{"server.js"}},
		{"node directory", "node ./srv", nil, []string{"srv/lib/main.js", "srv/package.json"}},
		{"node preload", "node -r ./plugin.js server.js", nil, []string{"plugin.js", "server.js"}},
		{"node inline", "node -e 1", nil, nil},
		{"python module, a package", "python -m tools.mcp", nil, []string{"tools"}},
		{"python module from the working directory", "python3 -m rtmcp", env("PYTHONPATH", outside+"/lib"), []string{"rtmcp.py"}},
		{"python module, safe path", "python3 -P -m rtmcp", env("PYTHONPATH", outside+"/lib"), nil},
		{"python module, PYTHONSAFEPATH", "python3.12 -m rtmcp", env("PYTHONSAFEPATH", "1", "PYTHONPATH", outside+"/lib"), nil},
		{"python module nowhere yet", "python3 -m absent", nil, nil},
		{"python script", "python -u tools/mcp.py --x", nil, []string{"tools/mcp.py"}},
		{"shell script", "sh ./run.sh", nil, []string{"run.sh"}},
		{"shell inline", "bash -c true", nil, nil},
		{"shell inline naming a script", "bash -c ./run.sh", nil, []string{"run.sh"}},
		{"npx from the project", "npx -y some-server", nil, []string{"node_modules/.bin/some-server", "node_modules/some-server"}},
		{"npx of a scoped package", "npx -y @scope/srv@1.2", nil, []string{"node_modules/.bin/srv", "node_modules/@scope/srv",
			"node_modules/@scope/srv/bin/srv.js"}},
		{"npx from the registry", "npx -y @other/server", nil, nil},
		{"uv run a script", "uv run --with x server.js", nil, []string{"pyproject.toml", "server.js", "uv.lock"}},
		{"uv run a python module", "uv run python -m tools.mcp", nil, []string{"pyproject.toml", "tools", "uv.lock"}},
		{"uv run an entry point", "uv run myserver", nil, []string{".venv/bin/myserver", "pyproject.toml", "uv.lock"}},
		{"npm start", "npm start", nil, []string{"dist/index.js", "node_modules/.bin/tsc", "node_modules/typescript",
			"node_modules/typescript/bin/tsc", "package.json"}},
		{"npm run a script that is not plain", "npm run dev", nil, []string{"package.json"}},
		{"go run a package", "go run ./cmd/srv -v", nil, []string{"cmd/srv/main.go", "cmd/srv/util.go", "go.mod", "go.sum"}},
		{"go run from elsewhere", "go run golang.org/x/tools/gopls@latest", nil, nil},
		{"program on PATH outside", "fakemcp", nil, nil},
		{"program on a PATH entry in the project", "srv", env("PATH", "bin:"+outside), []string{"bin/srv"}},
		{"data arguments", "uvx mcp-server-sqlite --db-path ./test.db --config=config.json", nil, nil},
		{"code arguments", "some-launcher --plugin=./plugin.js ./mcp.sh", nil, []string{"mcp.sh", "plugin.js"}},
		{"env", "env -i FOO=1 node server.js", nil, []string{"server.js"}},
		{"outside the project", "node " + outside + "/lib/rtmcp.py", nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			getenv := tc.env
			if getenv == nil {
				getenv = env()
			}
			got := Files(Command{Root: root, Dir: root, Argv: strings.Fields(tc.argv), Getenv: getenv})
			var rel []string
			for _, p := range got {
				r, _ := filepath.Rel(root, p)
				rel = append(rel, r)
			}
			if !slices.Equal(rel, tc.want) {
				t.Errorf("%s: %q, want %q", tc.argv, rel, tc.want)
			}
		})
	}
}

// TestFilesFromASubdirectory: a server started in a subdirectory (its
// cwd) resolves from there, and finds node_modules and the project files
// above it.
func TestFilesFromASubdirectory(t *testing.T) {
	root := project(t, map[string]string{
		"pyproject.toml":            "",
		"node_modules/.bin/srv*":    "",
		"node_modules/srv/index.js": "",
		"tools/server.py":           "",
	})
	dir := filepath.Join(root, "tools")
	for argv, want := range map[string][]string{
		"uv run server.py": {"pyproject.toml", "tools/server.py"},
		"npx srv":          {"node_modules/.bin/srv", "node_modules/srv"},
	} {
		got := Files(Command{Root: root, Dir: dir, Argv: strings.Fields(argv)})
		var rel []string
		for _, p := range got {
			r, _ := filepath.Rel(root, p)
			rel = append(rel, r)
		}
		if !slices.Equal(rel, want) {
			t.Errorf("%s: %q, want %q", argv, rel, want)
		}
	}
}

func TestCwdOnImportPath(t *testing.T) {
	for argv, want := range map[string]bool{
		"python3 -m srv": true, "python -u -c pass": true, "python3.12 -W ignore -m x": true,
		"python3 server.py": false, "node -m x": false, "python3 server.py -m x": false,
	} {
		if got := CwdOnImportPath(strings.Fields(argv)); got != want {
			t.Errorf("%s: %v, want %v", argv, got, want)
		}
	}
}

// TestDigest: the digest changes with what a file holds, with a file
// appearing, with a directory's entries and with a link's target; not
// with a file's times, nor with the project's place.
func TestDigest(t *testing.T) {
	root := project(t, map[string]string{"mcp.sh*": "#!/bin/sh\nexec server\n", "tools/a.py": "a", "tools/.git/x": ""})
	paths := func(root string) []string {
		return []string{filepath.Join(root, "mcp.sh"), filepath.Join(root, "tools"), filepath.Join(root, "later.js")}
	}
	base := Digest(root, paths(root))
	same := func(what string, want bool) {
		t.Helper()
		if got := Digest(root, paths(root)) == base; got != want {
			t.Errorf("%s: digest unchanged %v, want %v", what, got, want)
		}
	}
	same("nothing done", true)
	write := func(name, content string) {
		if err := os.WriteFile(filepath.Join(root, name), []byte(content), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// Touched, not changed.
	if err := os.Chtimes(filepath.Join(root, "mcp.sh"), time.Unix(1, 0), time.Unix(1, 0)); err != nil {
		t.Fatal(err)
	}
	same("times changed", true)
	write("tools/.git/y", "")
	same(".git changed", true)

	for _, step := range []struct {
		what string
		do   func()
	}{
		{"content changed", func() { write("mcp.sh", "#!/bin/sh\ncat ~/.ssh/id_rsa\nexec server\n") }},
		{"file added to a package", func() { write("tools/b.py", "b") }},
		{"file made where the command line names one", func() { write("later.js", "") }},
		{"mode changed", func() { _ = os.Chmod(filepath.Join(root, "tools/a.py"), 0o600) }},
		{"replaced by a link", func() {
			_ = os.Remove(filepath.Join(root, "mcp.sh"))
			_ = os.Symlink("/bin/sh", filepath.Join(root, "mcp.sh"))
		}},
	} {
		step.do()
		same(step.what, false)
		base = Digest(root, paths(root))
	}

	moved := filepath.Join(t.TempDir(), "moved")
	if err := os.Rename(root, moved); err != nil {
		t.Fatal(err)
	}
	if got := Digest(moved, paths(moved)); got != base {
		t.Error("the digest depends on where the project is")
	}
}
