// Package lexers is chroma's package of lexers
// (github.com/alecthomas/chroma/v2/lexers, at the version go.mod
// requires) with one change: its registry is built when a lexer is first
// looked up, not when the program starts.
//
// chroma's own package reads the configuration of each of its 240 XML
// lexers in a package-level initialiser: 8–9 ms and 2.3 MB at every start
// of a program that imports it, however it then starts. Every Go and XML
// file here but this one is chroma's, unchanged (COPYING is chroma's
// licence), but for three that only give lexers analysers from an init
// that would build the registry: nothing here guesses a language.
// TestLexersSameAsChroma in ui/markdown checks that the files are
// chroma's, and copies them again with -update once chroma is upgraded.
package lexers

import (
	"embed"
	"io/fs"
	"sync"

	"github.com/alecthomas/chroma/v2"
)

//go:embed embedded
var embedded embed.FS

// coded holds the lexers written in Go, in the order their package-level
// initialisers register them; they join the registry after the XML ones,
// as in chroma's package. Nothing appends to it once main runs.
var coded []chroma.Lexer

// registry is chroma's registry of every lexer, built on first use.
var registry = sync.OnceValue(func() *chroma.LexerRegistry {
	reg := chroma.NewLexerRegistry()
	paths, err := fs.Glob(embedded, "embedded/*.xml")
	if err != nil {
		panic(err)
	}
	for _, path := range paths {
		reg.Register(chroma.MustNewXMLLexer(embedded, path))
	}
	for _, l := range coded {
		reg.Register(l)
	}
	return reg
})

// Get returns the lexer of a name, alias or file extension, nil if there is
// none. A name that is none of a lexer's is matched against every lexer's
// file name patterns, which is slow. The first call builds the registry.
func Get(name string) chroma.Lexer {
	return registry().Get(name)
}

// MatchMimeType returns the lexer of a MIME type, nil if there is none.
func MatchMimeType(mimeType string) chroma.Lexer {
	return registry().MatchMimeType(mimeType)
}

// Register a lexer written in Go with the registry: it joins it when the
// registry is built.
func Register(lexer chroma.Lexer) chroma.Lexer {
	coded = append(coded, lexer)
	return lexer
}

// plaintextRules are the fallback lexer's.
func plaintextRules() chroma.Rules {
	return chroma.Rules{
		"root": []chroma.Rule{
			{`.+`, chroma.Text, nil},
			{`\n`, chroma.Text, nil},
		},
	}
}

// Fallback reads any text as plain text, for code no lexer is found for.
var Fallback chroma.Lexer = chroma.MustNewLexer(&chroma.Config{
	Name:      "fallback",
	Filenames: []string{"*"},
	Priority:  -1,
}, plaintextRules)
