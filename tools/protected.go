package tools

import (
	"fmt"
	"path/filepath"

	"lathe/tools/sandbox"
)

// protection refuses the file tools' writes to the paths the sandbox
// protects (the repository's hooks and config, and what would lead git to
// others), while commands run in the sandbox: git runs what those name the
// next time anyone uses the repository, outside the sandbox. What a
// command changes there is put back after it; the file tools run in
// lathe's own process, which the sandbox does not confine, so their writes
// are refused before they happen. With the sandbox off, nothing is.
type protection struct {
	ws     *Workspace
	policy *sandbox.Policy // nil: commands are not run through the sandbox
}

func newProtection(ws *Workspace, conf *Confinement) protection {
	if conf == nil {
		return protection{ws: ws}
	}
	return protection{ws: ws, policy: &conf.Policy} // which guards nothing in mode off
}

// check refuses a write to rel, a path from Rel, when it names a protected
// path, or leads to one through symlinks, with a *RefusedError; nil when
// the write may go ahead.
// A path that cannot be followed is left to the write to report.
func (p protection) check(rel string) error {
	if p.policy == nil {
		return nil
	}
	target, err := p.ws.follow(rel)
	if err != nil {
		return nil
	}
	for _, base := range []string{p.ws.dir, p.ws.real} {
		if p.policy.Guarded(filepath.Join(base, filepath.FromSlash(target))) == "" {
			continue
		}
		via := ""
		if target != rel {
			via = " (through the symlink " + rel + ")"
		}
		return &RefusedError{Subject: target, Err: fmt.Errorf("%s%s is protected while commands are sandboxed: "+
			"git runs what its hooks and config name, outside the sandbox. Commands cannot change it either "+
			"(the sandbox puts it back); if the change is needed, tell the user what to change and why", target, via)}
	}
	return nil
}
