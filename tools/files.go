package tools

import (
	"context"
	"slices"
	"sync"
)

// Files lists the regular files of the working directory, as the search
// tools see it: .gitignore rules respected, .git and symlinks left out.
// The paths are relative, with slashes, sorted. At most limit are
// returned; more reports that there were others. The walk stops at four
// times limit, so that a huge tree costs bounded memory: which files are
// listed is then not always the same.
func (w *Workspace) Files(ctx context.Context, limit int) (files []string, more bool, err error) {
	walkCtx, stop := context.WithCancel(ctx)
	defer stop()
	var mu sync.Mutex
	err = walk(walkCtx, w.root, walkOpts{start: ".", ignore: loadIgnorer(w.root, ".")}, func(_ int, e entry) bool {
		if e.typ.IsDir() {
			return true
		}
		if !e.typ.IsRegular() {
			return false
		}
		mu.Lock()
		defer mu.Unlock()
		if len(files) < 4*limit {
			files = append(files, e.rel())
		} else {
			more = true
			stop()
		}
		return false
	})
	if ctx.Err() != nil {
		return nil, false, ctx.Err()
	}
	slices.Sort(files)
	if len(files) > limit {
		return files[:limit], true, nil
	}
	return files, more, nil
}
