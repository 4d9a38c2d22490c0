package linedfa

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"lathe/tools/internal/gentree"
)

// benchText is the text of a generated source tree, about 4 MB.
func benchText(b *testing.B) []byte {
	b.Helper()
	dir := b.TempDir()
	if err := gentree.Generate(dir, gentree.Params{Files: 600}); err != nil {
		b.Fatal(err)
	}
	var buf bytes.Buffer
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			data, _ := os.ReadFile(p)
			if bytes.IndexByte(data, 0) < 0 {
				buf.Write(data)
			}
		}
		return nil
	})
	return buf.Bytes()
}

// BenchmarkScan compares Scan with regexp run on each line, the way grep
// used it, for patterns with no literal to look for first.
func BenchmarkScan(b *testing.B) {
	text := benchText(b)
	for _, p := range []string{`[A-Z]{4}\(`, `[A-Z][a-z]{2,}[0-9]{3}`, `(?i)todo`, `\w+Token\b`, `(?i)fixme|xxx|hack`, `[a-z]+[0-9]+\(`} {
		prog, err := Compile(p)
		if err != nil {
			b.Fatal(err)
		}
		re := regexp.MustCompile(p)
		b.Run("dfa/"+p, func(b *testing.B) {
			m := prog.NewMatcher(re.Match)
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				m.Scan(text, func(int, int) {})
			}
		})
		b.Run("regexp/"+p, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				for line := range bytes.Lines(text) {
					re.Match(line)
				}
			}
		})
	}
}
