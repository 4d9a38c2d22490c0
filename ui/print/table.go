package print

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
)

// table writes the lists of sessions and of facts: columns two spaces
// apart, each as wide as its widest cell, the last one unpadded. With
// dirs, each row has a directory, shown as the column before the last.
type table struct {
	tw   *tabwriter.Writer
	dirs bool
}

func newTable(w io.Writer, dirs bool) *table {
	return &table{tw: tabwriter.NewWriter(w, 0, 0, 2, ' ', 0), dirs: dirs}
}

// row writes a row of cells; dir is its directory, written with dirs only.
func (t *table) row(dir string, cells ...string) {
	if t.dirs {
		cells = slices.Insert(cells, len(cells)-1, dir)
	}
	fmt.Fprintln(t.tw, strings.Join(cells, "\t"))
}

// flush writes the rows out, aligned.
func (t *table) flush() error { return t.tw.Flush() }
