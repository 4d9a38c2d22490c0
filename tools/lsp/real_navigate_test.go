package lsp

import (
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"lathe/tools"
)

// realNav is a manager of the built-in servers over files, the program's
// directory leading PATH, and its navigation tools by name.
func realNav(t *testing.T, program string, files map[string]string) (*Manager, map[string]tools.Tool) {
	t.Helper()
	dir, root := workspace(t, files)
	m := New(Options{Dir: dir, Root: root, Servers: Builtins(), Environ: realEnviron(program), ToolWait: 60 * time.Second,
		Start: confined(t, dir), Log: zerolog.New(zerolog.NewTestWriter(t)).Level(zerolog.DebugLevel).With().Timestamp().Logger()})
	t.Cleanup(m.Close)
	return m, navTools(t, m, dir)
}

const goLib = `package main

// greeting is what main says.
func greeting() string { return "hi" }
`

const goApp = `package main

import "fmt"

func main() {
	fmt.Println(greeting())
	fmt.Println(greeting() + "!")
}
`

// navCase is a call of a navigation tool and what its result must be:
// want exactly, or, with prefix set, starting so and holding has.
type navCase struct {
	tool, args, want string
	prefix           bool
	has              string
}

func checkNav(t *testing.T, nav map[string]tools.Tool, cases []navCase) {
	t.Helper()
	for _, c := range cases {
		res := call(t, nav[c.tool], c.args)
		ok := res.Content == c.want
		if c.prefix {
			ok = strings.HasPrefix(res.Content, c.want) && strings.Contains(res.Content, c.has)
		}
		if !ok || res.IsError != strings.HasPrefix(c.want, "error: ") {
			t.Errorf("%s %s:\n%s\nwant\n%s", c.tool, c.args, res.Content, c.want)
		}
	}
}

// TestGoplsNavigates: gopls answers each tool, by place and by name; a
// definition in the standard library is outside the workspace; a name
// nowhere is an error that does not list the libraries' near misses.
func TestGoplsNavigates(t *testing.T) {
	gopls := realServer(t, "LATHE_TEST_GOPLS_DIR", "gopls", "go install golang.org/x/tools/gopls@v0.23.0")
	_, nav := realNav(t, gopls, map[string]string{"go.mod": "module example.com/m\n\ngo 1.22\n", "lib.go": goLib, "main.go": goApp})
	uses := "lib.go:4:6: func greeting() string { return \"hi\" }\nmain.go:6:14: fmt.Println(greeting())\n" +
		"main.go:7:14: fmt.Println(greeting() + \"!\")"
	checkNav(t, nav, []navCase{
		{tool: "definition", args: `{"path": "main.go", "line": 6, "column": 15}`,
			want: "definition of greeting (main.go:6:15):\nlib.go:4:6: func greeting() string { return \"hi\" }"},
		{tool: "definition", args: `{"symbol": "greeting"}`,
			want: "definition of greeting:\nlib.go:4:6: func greeting() string { return \"hi\" } (function)"},
		{tool: "definition", args: `{"path": "main.go", "line": 6, "symbol": "Println"}`,
			want: "definition of Println (main.go:6:6):\n/", prefix: true, has: "/fmt/print.go:"},
		{tool: "references", args: `{"symbol": "greeting"}`, want: "3 references to greeting (lib.go:4:6):\n" + uses},
		{tool: "references", args: `{"path": "lib.go", "line": 4, "column": 6}`, want: "3 references to greeting (lib.go:4:6):\n" + uses},
		{tool: "hover", args: `{"path": "main.go", "line": 6, "symbol": "greeting"}`,
			want: "greeting (main.go:6:14):\nfunc greeting() string\ngreeting is what main says."},
		{tool: "hover", args: `{"symbol": "nothere"}`, want: "error: no symbol named nothere in the workspace"},
		{tool: "hover", args: `{"path": "main.go", "line": 30, "column": 1}`, want: "error: main.go has 8 lines; line 30 is not one of them"},
	})
}

const pyLib = `def greeting() -> str:
    """What main says."""
    return "hi"
`

const pyApp = `from lib import greeting


def main() -> None:
    print(greeting())
    print(greeting() + "!")
`

// TestPyrightNavigates: the same with pyright, whose builtins are
// outside the workspace too.
func TestPyrightNavigates(t *testing.T) {
	pyright := realServer(t, "LATHE_TEST_PYRIGHT_DIR", "pyright-langserver", "npm install pyright")
	_, nav := realNav(t, pyright, map[string]string{"lib.py": pyLib, "main.py": pyApp})
	uses := "lib.py:1:5: def greeting() -> str:\nmain.py:1:17: from lib import greeting\nmain.py:5:11: print(greeting())\n" +
		"main.py:6:11: print(greeting() + \"!\")"
	checkNav(t, nav, []navCase{
		{tool: "definition", args: `{"path": "main.py", "line": 5, "column": 11}`,
			want: "definition of greeting (main.py:5:11):\nlib.py:1:5: def greeting() -> str:"},
		{tool: "definition", args: `{"symbol": "greeting"}`, want: "definition of greeting:\nlib.py:1:5: def greeting() -> str: (function)"},
		{tool: "definition", args: `{"path": "main.py", "line": 5, "symbol": "print"}`,
			want: "definition of print (main.py:5:5):\n/", prefix: true, has: "/builtins.pyi:"},
		{tool: "references", args: `{"symbol": "greeting"}`, want: "4 references to greeting (lib.py:1:5):\n" + uses},
		{tool: "references", args: `{"path": "lib.py", "line": 1, "column": 5}`, want: "4 references to greeting (lib.py:1:5):\n" + uses},
		{tool: "hover", args: `{"path": "main.py", "line": 5, "symbol": "greeting"}`,
			want: "greeting (main.py:5:11):\n(function) def greeting() -> str\n\nWhat main says."},
		{tool: "hover", args: `{"symbol": "nothere"}`, want: "error: no symbol named nothere in the workspace"},
	})
}
