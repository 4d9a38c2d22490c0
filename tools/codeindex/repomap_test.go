package codeindex_test

import (
	"fmt"
	"testing"

	"lathe/tools/codeindex"
)

func TestMap(t *testing.T) {
	p := newProject(t, map[string]string{
		"main.go":         "package main\n\nfunc main() {}\n\nfunc helper() {}\n",
		"lex/lex.go":      "package lex\n\ntype Lexer struct{}\n\nfunc (l *Lexer) Next() {}\n\nfunc scan() {}\n\nconst Max = 1\n",
		"lex/lex_test.go": "package lex\n\nfunc TestLex() {}\n",
		"docs/guide.md":   "# Guide\n",
		"ignored/x.go":    "package x\n",
		".gitignore":      "ignored/\n",
	})
	files, _, err := p.ws.Files(t.Context(), 1000)
	if err != nil {
		t.Fatal(err)
	}
	full := codeindex.Map(t.Context(), p.ws.Root(), files, 500)
	want := "./\n  .gitignore\n  main.go: main, helper\ndocs/\n  guide.md\nlex/\n  lex.go: Lexer, (*Lexer).Next, Max, scan\n  lex_test.go"
	if full != want {
		t.Errorf("map\n%s\nwant\n%s", full, want)
	}
	if again := codeindex.Map(t.Context(), p.ws.Root(), files, 500); again != full {
		t.Error("the same files map differently")
	}
	// Smaller budgets: the symbols go, then the files.
	if got := codeindex.Map(t.Context(), p.ws.Root(), files, 20); got != "./\n  .gitignore\n  main.go\ndocs/\n  guide.md\nlex/\n  lex.go\n  lex_test.go" {
		t.Errorf("without symbols:\n%s", got)
	}
	if got := codeindex.Map(t.Context(), p.ws.Root(), files, 12); got != "./ (2 files)\ndocs/ (1 files)\nlex/ (2 files)" {
		t.Errorf("counted:\n%s", got)
	}
	var many []string
	for i := range 20 {
		many = append(many, fmt.Sprintf("d%02d/f.txt", i))
	}
	if got := codeindex.Map(t.Context(), nil, many, 20); got != "d00/ (1 files)\nd01/ (1 files)\nd02/ (1 files)\n… and 17 more directories" {
		t.Errorf("cut:\n%s", got)
	}
	if got := codeindex.Map(t.Context(), p.ws.Root(), files, 2); got != "… 3 directories" {
		t.Errorf("cut to nothing:\n%s", got)
	}
}
