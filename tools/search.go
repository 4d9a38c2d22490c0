package tools

import (
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
	ign    *ignorer // .gitignore rules in effect in target
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

func (s *searchDir) workers() int { return runtime.GOMAXPROCS(0) }

func (s *searchDir) walkOpts(workers int) walkOpts {
	return walkOpts{start: s.target, ignore: s.ign, workers: workers}
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
