package tools

import (
	"context"
	"os"
	"path"
	"runtime"
	"strings"
)

// searchDir is where a glob or grep starts: a directory or a file, named as
// the model named it and resolved through symlinks.
type searchDir struct {
	rel    string // root-relative, as named
	target string // rel with symlinks resolved
	isDir  bool
	ign    *ignorer // .gitignore rules from above target (loadIgnorer)
}

func newSearchDir(ws *Workspace, rel string) (*searchDir, error) {
	target, err := ws.follow(rel)
	if err != nil {
		return nil, err
	}
	fi, err := ws.root.Stat(target)
	if err != nil {
		return nil, ws.fsError(rel, err)
	}
	s := &searchDir{rel: rel, target: target, isDir: fi.IsDir()}
	if s.isDir {
		s.ign = loadIgnorer(ws.root, target)
	}
	return s, nil
}

// walkEach walks the search directory s with one state per walk worker,
// each a copy of init, and passes visit the state of the worker calling it.
// It returns the states, to merge.
func walkEach[S any](ctx context.Context, root *os.Root, s *searchDir, init S, visit func(st *S, e entry) bool) ([]S, error) {
	states := make([]S, runtime.GOMAXPROCS(0))
	for i := range states {
		states[i] = init
	}
	opts := walkOpts{start: s.target, ignore: s.ign, workers: len(states)}
	err := walk(ctx, root, opts, func(w int, e entry) bool { return visit(&states[w], e) })
	return states, err
}

// display turns a path below target into the same path below rel, so that
// results are named the way the model named the directory.
func (s *searchDir) display(p string) string {
	if s.rel == s.target {
		return p
	}
	if s.target != "." {
		p = strings.TrimPrefix(p, s.target+"/")
	}
	return path.Join(s.rel, p)
}
