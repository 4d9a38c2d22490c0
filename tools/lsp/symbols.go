package lsp

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"lathe/tools"
)

// match is a symbol a server found for a name.
type match struct {
	symbol
	e     *entry
	c     *client
	at    place
	score int // symbol.named
}

// lookup finds the symbols named name through workspace/symbol, asking
// the server of the file at path, or every server of the workspace when
// path is "". They come best first: in path, then in the workspace, then
// named exactly, then in the servers' order and by place. Those of the
// best kind are kept (in the workspace if any is; in path if any is).
// When none is, the result says so, with the names the servers have
// that come close.
func (m *Manager) lookup(ctx context.Context, name, path string, caller tools.Caller) ([]match, *tools.Result) {
	entries, res := m.navEntries(path)
	if res != nil {
		return nil, res
	}
	caller.Report(waiting(entries))
	all, res := m.symbols(ctx, entries, name)
	if res != nil {
		return nil, res
	}
	if last := name[strings.LastIndexByte(name, '.')+1:]; !hasMatch(all, name) && last != name && last != "" {
		if more, res := m.symbols(ctx, entries, last); res == nil {
			all = append(all, more...)
		}
	}
	for i := range all {
		all[i].score = all[i].named(name)
	}
	inPath := func(x match) bool { return path != "" && x.at.path == path }
	slices.SortStableFunc(all, func(a, b match) int {
		return cmp.Or(-cmpBool(inPath(a), inPath(b)), -cmpBool(a.at.inside, b.at.inside), cmp.Compare(b.score, a.score),
			cmp.Compare(slices.Index(m.entries, a.e), slices.Index(m.entries, b.e)),
			cmp.Compare(a.at.path, b.at.path), cmp.Compare(a.at.line, b.at.line), cmp.Compare(a.at.char, b.at.char))
	})
	if !hasMatch(all, name) {
		r := noSymbol(name, path, all)
		return nil, &r
	}
	best := all[0]
	kept := slices.DeleteFunc(all, func(x match) bool {
		return x.score != best.score || inPath(x) != inPath(best) || x.at.inside != best.at.inside
	})
	return slices.CompactFunc(kept, func(a, b match) bool { return a.at == b.at }), nil
}

func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

func hasMatch(all []match, name string) bool {
	return slices.ContainsFunc(all, func(x match) bool { return x.named(name) > 0 })
}

// navEntries are the servers a navigation call asks: the one of the
// file at path, or those of the workspace's languages.
func (m *Manager) navEntries(path string) ([]*entry, *tools.Result) {
	if path != "" {
		e := m.entryFor(path)
		if e == nil {
			r := tools.Errorf("no server", fmt.Sprintf("no language server serves %s", path))
			return nil, &r
		}
		return []*entry{e}, nil
	}
	var out []*entry
	for _, name := range m.Relevant() {
		for _, e := range m.entries {
			if e.srv.Name == name {
				out = append(out, e)
			}
		}
	}
	if len(out) == 0 {
		r := tools.Errorf("no server", "no language server runs for the languages of this workspace")
		return nil, &r
	}
	return out, nil
}

// symbols asks each server of entries for the symbols query names, at
// once; the result says why when none could answer.
func (m *Manager) symbols(ctx context.Context, entries []*entry, query string) ([]match, *tools.Result) {
	var mu sync.Mutex
	var all []match
	var failures []string
	var wg sync.WaitGroup
	for _, e := range entries {
		wg.Go(func() {
			c, res := m.ready(ctx, e, "workspace/symbol")
			var raw json.RawMessage
			if res == nil {
				if err := c.request(ctx, "workspace/symbol", map[string]string{"query": query}, &raw); err != nil {
					r := m.failure(e, err)
					res = &r
				}
			}
			var found []symbol
			if res == nil && json.Unmarshal(raw, &found) != nil {
				r := tools.Errorf("bad answer", fmt.Sprintf("the language server %s answered with something that is not a list of symbols", e.srv.Name))
				res = &r
			}
			mu.Lock()
			defer mu.Unlock()
			if res != nil {
				failures = append(failures, strings.TrimPrefix(res.Content, "error: "))
				return
			}
			for _, s := range found[:min(len(found), maxSymbols)] {
				all = append(all, match{symbol: s, e: e, c: c, at: placeOf(m.opts.Dir, s.Location)})
			}
		})
	}
	wg.Wait()
	if len(failures) == len(entries) {
		slices.Sort(failures)
		r := tools.Errorf("failed", strings.Join(failures, "; "))
		return nil, &r
	}
	return all, nil
}

// maxSymbols is how many symbols of one answer are looked at.
const maxSymbols = 1000

// noSymbol is the result of a name no symbol has: an error naming those
// found in the workspace that come close (a server's fuzzy matches in
// the libraries would be noise).
func noSymbol(name, path string, all []match) tools.Result {
	where := "the workspace"
	if path != "" {
		where = path
	}
	text := fmt.Sprintf("no symbol named %s in %s", name, where)
	var close []string
	for _, x := range all {
		n := x.Name
		if x.at.inside && !slices.Contains(close, n) && len(close) < 8 {
			close = append(close, n)
		}
	}
	if len(close) > 0 {
		text += "; names that come close: " + strings.Join(close, ", ")
	}
	return tools.Errorf("not found", text)
}

// aim moves x to where name's last part is in its range, when its file
// can be read: a symbol's range may start before its name.
func (t *texts) aim(x *match, name string) {
	if !x.at.inside {
		return
	}
	name = name[strings.LastIndexByte(name, '.')+1:]
	text := t.of(x.at.path)
	r := x.Location.Range
	for n := int(r.Start.Line); n <= int(r.End.Line) && n < int(r.Start.Line)+50; n++ {
		l, ok := lineOf(text, n)
		if !ok {
			return
		}
		runes, from := []rune(l), 0
		if n == int(r.Start.Line) {
			from = charColumn(text, n, int(r.Start.Character))
		}
		if i := wordIndex(runes, []rune(name), from); i >= 0 {
			x.at.line, x.at.char = n, units(runes[:i])
			return
		}
	}
}

// describe is x for the model: where it is, and what kind of symbol.
func (t *texts) describe(x match) string {
	s := t.line(x.at)
	if k := symbolKinds[x.Kind]; k != "" {
		s += " (" + k + ")"
	}
	return s
}
