package lsp

import (
	"context"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/charmbracelet/x/powernap/pkg/lsp/protocol"

	"lathe/prompts/human"
	"lathe/tools"
)

// Bounds of the diagnostics tool.
const (
	settle      = time.Second // quiet that ends a wait for a workspace's diagnostics
	toolLines   = 50          // problems listed
	scanEntries = 5000        // entries of the workspace looked at to tell its languages
)

// Tool returns the diagnostics tool: the errors and warnings the
// language servers report now for a file, or for the workspace. It is
// offered (tools.Optional) when a server can start for a language the
// workspace holds.
func (m *Manager) Tool(ws *tools.Workspace) tools.Tool {
	t := tools.Func("diagnostics", "Compiler and type errors and warnings the language servers report now, for one file or the workspace.",
		[]tools.Param{{Name: "path", Type: "string", Description: "File path; empty for the whole workspace"}}, tools.KindRead,
		func(a struct {
			Path string `json:"path"`
		}) (tools.Call, error) {
			path := strings.TrimSpace(a.Path)
			if path != "" && path != "." {
				rel, err := ws.Rel(path)
				if err != nil {
					return nil, err
				}
				path = rel
			} else {
				path = ""
			}
			return tools.RunFunc(path, func(ctx context.Context, caller tools.Caller) (tools.Result, error) {
				return m.diagnose(ctx, path, caller), nil
			}), nil
		})
	return offered{Tool: t, m: m}
}

// offered is a tool of the language servers, offered when one can start
// for a language the workspace holds.
type offered struct {
	tools.Tool
	m *Manager
}

// Available implements tools.Optional.
func (t offered) Available(context.Context) bool { return len(t.m.Relevant()) > 0 }

// Relevant names the servers that can start for a language the workspace
// holds, in order; the workspace is looked at once.
func (m *Manager) Relevant() []string {
	m.scan.Do(func() { m.exts, m.markers = scanWorkspace(m.opts.Root) })
	var out []string
	for _, e := range m.entries {
		if e.argv == nil || !m.admitted(e) {
			continue
		}
		holds := slices.ContainsFunc(e.srv.Extensions, func(x string) bool { return m.exts[strings.ToLower(x)] }) ||
			slices.ContainsFunc(e.srv.RootMarkers, func(x string) bool { return m.markers[x] })
		if holds {
			out = append(out, e.srv.Name)
		}
	}
	return out
}

// scanWorkspace returns the extensions of the files of the workspace
// (the first scanEntries entries, hidden and dependency directories
// left out) and the names at its top.
func scanWorkspace(root interface{ FS() fs.FS }) (map[string]bool, map[string]bool) {
	exts, top := map[string]bool{}, map[string]bool{}
	n := 0
	_ = fs.WalkDir(root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if n++; n > scanEntries {
			return fs.SkipAll
		}
		name := d.Name()
		if p != "." && !strings.Contains(p, "/") {
			top[name] = true
		}
		if d.IsDir() {
			if p != "." && (strings.HasPrefix(name, ".") || name == "node_modules" || name == "vendor" || name == "target") {
				return fs.SkipDir
			}
			return nil
		}
		if i := strings.LastIndexByte(name, '.'); i > 0 {
			exts[strings.ToLower(name[i:])] = true
		}
		return nil
	})
	return exts, top
}

// diagnose is a call of the diagnostics tool.
func (m *Manager) diagnose(ctx context.Context, path string, caller tools.Caller) tools.Result {
	ctx, cancel := context.WithTimeout(ctx, m.opts.ToolWait)
	defer cancel()
	if path != "" {
		return m.diagnoseFile(ctx, path, caller)
	}
	var entries []*entry
	for _, name := range m.Relevant() {
		for _, e := range m.entries {
			if e.srv.Name == name {
				entries = append(entries, e)
			}
		}
	}
	if len(entries) == 0 {
		return tools.Errorf("no server", "no language server runs for the languages of this workspace")
	}
	caller.Report(waiting(entries))
	var mu sync.Mutex
	var all []found
	var wg sync.WaitGroup
	for _, e := range entries {
		wg.Go(func() {
			c := m.client(e)
			if c == nil || !c.waitReady(ctx) {
				return
			}
			c.quiet(ctx, settle)
			f := c.current(m.opts.Warnings)
			mu.Lock()
			all = append(all, f...)
			mu.Unlock()
		})
	}
	wg.Wait()
	return listResult(all, "the files the language servers know of")
}

// diagnoseFile is the diagnostics tool for one file: it is sent to its
// server as it is on disk, and what the server publishes for it is the
// answer.
func (m *Manager) diagnoseFile(ctx context.Context, path string, caller tools.Caller) tools.Result {
	e := m.entryFor(path)
	if e == nil {
		return tools.Errorf("no server", fmt.Sprintf("no language server serves %s", path))
	}
	text, ok := m.readFile(path)
	if !ok {
		return tools.Errorf("not read", fmt.Sprintf("%s is not a file a language server reads (missing, not a regular file, or over %d bytes)", path, maxFileBytes))
	}
	caller.Report(waiting([]*entry{e}))
	c := m.client(e)
	if c == nil || !c.waitReady(ctx) {
		return tools.Errorf("no answer", fmt.Sprintf("the language server %s did not answer in time", e.srv.Name))
	}
	doc, open := c.state(path)
	if !open || doc.text != text || doc.seq == 0 {
		before, ok := c.sync(ctx, path, text)
		if !ok {
			return tools.Errorf("no answer", fmt.Sprintf("the language server %s did not answer in time", e.srv.Name))
		}
		if doc, ok = c.awaitFresh(ctx, path, before.seq); !ok {
			return tools.Errorf("no answer", fmt.Sprintf("the language server %s did not answer in time", e.srv.Name))
		}
	}
	var all []found
	for _, d := range doc.diags {
		if d.Severity <= protocol.SeverityWarning {
			all = append(all, foundOf(path, doc.text, d))
		}
	}
	return listResult(all, path)
}

// listResult lists what was found in what.
func listResult(all []found, what string) tools.Result {
	if len(all) == 0 {
		return tools.Result{Content: "no errors or warnings in " + what, Summary: "no problems"}
	}
	sum := summarize(all, nil)
	lines := sum.Lines
	if len(all) > tools.MaxDiagnostics {
		lines = nil
		for _, f := range all[:min(len(all), toolLines)] {
			lines = append(lines, f.String())
		}
	}
	text := strings.Join(lines, "\n")
	if len(all) > len(lines) {
		text += fmt.Sprintf("\n(%d more not shown)", len(all)-len(lines))
	}
	return tools.Result{Content: text, Summary: human.Plural(len(all), "problem")}
}

// foundOf is a diagnostic of the file at path, whose text is text.
func foundOf(path, text string, d protocol.Diagnostic) found {
	line := int(d.Range.Start.Line)
	return found{path: path, line: line + 1, col: byteColumn(text, line, int(d.Range.Start.Character)) + 1,
		severity: d.Severity, message: oneLine(d.Message)}
}
