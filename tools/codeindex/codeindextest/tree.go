package codeindextest

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
)

// TreeFile is the path, relative to a tree's directory, of its i-th file.
func TreeFile(i int) string { return fmt.Sprintf("pkg%d/file%d.go", i%100, i) }

// WriteTree writes files Go files of funcs functions each under dir, each
// function (with its doc comment) one chunk of about 900 bytes: 25 lines
// of identifiers drawn as the words of code are (Zipf's law: a few are
// everywhere, most are rare; "w0" is the commonest).
func WriteTree(dir string, seed uint64, files, funcs int) error {
	for i := range files {
		if err := WriteTreeFile(dir, seed, i, funcs, 0); err != nil {
			return err
		}
	}
	return nil
}

// WriteTreeFile writes the i-th file of a tree, as edit number edit
// (0 is the file WriteTree writes; another number, another content).
func WriteTreeFile(dir string, seed uint64, i, funcs, edit int) error {
	path := filepath.Join(dir, filepath.FromSlash(TreeFile(i)))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, treeSource(seed, i, funcs, edit), 0o644)
}

func treeSource(seed uint64, i, funcs, edit int) []byte {
	r := rand.New(rand.NewPCG(seed^uint64(edit)<<32, uint64(i)))
	zipf := rand.NewZipf(r, 1.1, 1, 4999)
	var b strings.Builder
	fmt.Fprintf(&b, "package pkg%d\n", i%100)
	for f := range funcs {
		fmt.Fprintf(&b, "\n// F%d_%d keeps w%d of w%d (edit %d).\nfunc F%d_%d(in []string) string {\n",
			i, f, zipf.Uint64(), zipf.Uint64(), edit, i, f)
		for range 22 {
			b.WriteString("\t_ = []string{")
			for w := range 6 {
				if w > 0 {
					b.WriteString(", ")
				}
				fmt.Fprintf(&b, `"w%d"`, zipf.Uint64())
			}
			b.WriteString("}\n")
		}
		b.WriteString("\treturn \"\"\n}\n")
	}
	return []byte(b.String())
}
