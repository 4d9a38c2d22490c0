package orchestrator

import (
	"context"
	"reflect"
	"slices"

	"lathe/orchestrator/provider"
	"lathe/tools"
)

// syncTools takes the extra tools offered now (see ToolSource): the
// tools of every mode are built again when they changed, and what changed
// waits in s.notes to be told. Only between requests: at a run's start, a
// mode change, a reload.
func (s *Session) syncTools(ctx context.Context, latest, run bool) {
	if s.opts.Extra == nil || s.model.Name == "" {
		return
	}
	extra, notes := s.opts.Extra.Tools(ctx, s.model.NumCtx, latest, run)
	s.notes = append(s.notes, notes...)
	if sameTools(extra, s.extra) {
		return
	}
	s.extra = extra
	s.offer(s.mode)
	s.opts.Log.Debug().Int("extra_tools", len(extra)).Int("tool_bytes", s.win.Specs).Msg("tools changed")
}

// sameTools reports whether a and b offer the same tools, spec for spec.
func sameTools(a, b []tools.Tool) bool {
	return slices.EqualFunc(a, b, func(x, y tools.Tool) bool {
		return x.Kind() == y.Kind() && reflect.DeepEqual(x.Spec(), y.Spec())
	})
}

// extraSpecs is how many bytes the extra tools the mode offers add to
// every request.
func (s *Session) extraSpecs() int {
	var specs []provider.ToolSpec
	for _, t := range s.extra {
		if offered, ok := s.tools.Lookup(t.Name()); ok {
			specs = append(specs, offered.Spec())
		}
	}
	if len(specs) == 0 {
		return 0
	}
	return provider.SpecsSize(specs)
}

// takeNotes returns what changed of the tools since it was last told.
func (s *Session) takeNotes() []string {
	notes := s.notes
	s.notes = nil
	return notes
}

// ReloadTools offers the extra tools' latest lists from the next request
// on (the prompt cache is read again once), and returns what changed.
func (s *Session) ReloadTools(ctx context.Context) ([]string, error) {
	if err := s.ops.begin(opTools); err != nil {
		return nil, err
	}
	defer s.end()
	s.syncTools(ctx, true, false)
	return s.takeNotes(), nil
}
