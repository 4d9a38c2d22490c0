package demo

import (
	"os"
	"path/filepath"
)

// project is the sample project the demo works in: a Go package with a
// bug for the demo model to fix.
var project = map[string]string{
	"README.md": "# greet\n\nA tiny Go package for trying lathe's demo: `Greet` says hello to someone.\n" +
		"Its test fails: there is a bug to fix.\n",
	"go.mod":   "module greet\n\ngo 1.22\n",
	"greet.go": "// Package greet says hello.\npackage greet\n\n// Greet greets name.\nfunc Greet(name string) string {\n\treturn \"Helo, \" + name\n}\n",
	"greet_test.go": "package greet\n\nimport \"testing\"\n\nfunc TestGreet(t *testing.T) {\n" +
		"\tif got := Greet(\"Ada\"); got != \"Hello, Ada\" {\n\t\tt.Errorf(\"Greet(Ada) = %q\", got)\n\t}\n}\n",
}

// WriteProject writes the sample project into dir, which must exist.
func WriteProject(dir string) error {
	for name, text := range project {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			return err
		}
	}
	return nil
}
