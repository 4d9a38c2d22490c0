package lsp

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/charmbracelet/x/powernap/pkg/lsp/protocol"

	"lathe/tools"
)

// Check implements tools.Checker: each changed file a server serves is
// sent to it, and the diagnostics it then publishes for the file, less
// those the file had before the change, are the result. It waits at most
// Options.Wait in all; what has not come by then is not waited for. A
// file a command changed that no server had open is only opened: what
// it held before is not known, so neither is what the change brought.
func (m *Manager) Check(ctx context.Context, changes []tools.FileChange, report func(string)) tools.Diagnostics {
	type job struct {
		ch tools.FileChange
		e  *entry
	}
	var jobs []job
	var entries []*entry
	for _, ch := range changes {
		if e := m.entryFor(ch.Path); e != nil {
			jobs = append(jobs, job{ch, e})
			if !slices.Contains(entries, e) {
				entries = append(entries, e)
			}
		}
	}
	if len(jobs) == 0 {
		return tools.Diagnostics{}
	}
	if report != nil {
		report(waiting(entries))
	}
	start := time.Now()
	ctx, cancel := context.WithTimeout(ctx, m.opts.Wait)
	defer cancel()
	results := make([][]found, len(jobs))
	var wg sync.WaitGroup
	for i, j := range jobs {
		wg.Go(func() { results[i] = m.checkFile(ctx, j.e, j.ch) })
	}
	wg.Wait()
	var all []found
	var servers []string
	for i, f := range results {
		all = append(all, f...)
		if len(f) > 0 && !slices.Contains(servers, jobs[i].e.srv.Name) {
			servers = append(servers, jobs[i].e.srv.Name)
		}
	}
	m.opts.Log.Debug().Strs("servers", names(entries)).Int("files", len(jobs)).Dur("waited", time.Since(start)).
		Bool("timed_out", ctx.Err() != nil).Int("new", len(all)).Msg("diagnostics wait")
	return summarize(all, servers)
}

// found is a diagnostic as lathe reports it.
type found struct {
	path      string
	line, col int // 1-based; col in bytes
	severity  protocol.DiagnosticSeverity
	message   string
}

func (f found) String() string {
	sev := ""
	switch f.severity {
	case protocol.SeverityWarning:
		sev = "warning: "
	case protocol.SeverityInformation:
		sev = "info: "
	case protocol.SeverityHint:
		sev = "hint: "
	}
	return fmt.Sprintf("%s:%d:%d: %s%s", f.path, f.line, f.col, sev, f.message)
}

// summarize sorts what was found and keeps the first MaxDiagnostics.
func summarize(all []found, servers []string) tools.Diagnostics {
	if len(all) == 0 {
		return tools.Diagnostics{}
	}
	slices.SortStableFunc(all, func(a, b found) int {
		return cmp.Or(cmp.Compare(a.path, b.path), cmp.Compare(a.line, b.line), cmp.Compare(a.col, b.col))
	})
	d := tools.Diagnostics{Total: len(all), Servers: servers}
	for _, f := range all[:min(len(all), tools.MaxDiagnostics)] {
		d.Lines = append(d.Lines, f.String())
	}
	return d
}

// checkFile sends one changed file to its server and returns the
// problems the change brought into it.
func (m *Manager) checkFile(ctx context.Context, e *entry, ch tools.FileChange) []found {
	c := m.client(e)
	if c == nil || !c.waitReady(ctx) {
		return nil
	}
	text, exists := m.readFile(ch.Path)
	if !exists && m.exists(ch.Path) {
		return nil // not a file a server reads (a directory, a large file)
	}
	doc, open := c.state(ch.Path)
	var baseline []protocol.Diagnostic
	switch {
	case open && doc.based:
		baseline = doc.base
	case open && doc.seq == 0:
		// Opened on a read, its diagnostics not in yet: they are the
		// baseline.
		d, ok := c.awaitFresh(ctx, ch.Path, 0)
		if !ok {
			return nil
		}
		baseline = d.diags
	case open:
		baseline = doc.diags
	case !exists:
		return nil
	case !ch.Known:
		c.sync(ctx, ch.Path, text) // known from now on
		return nil
	case ch.Before != nil:
		if _, ok := c.sync(ctx, ch.Path, string(ch.Before)); !ok {
			return nil
		}
		d, ok := c.awaitFresh(ctx, ch.Path, 0)
		if !ok {
			return nil
		}
		baseline = d.diags
	}
	if !exists {
		c.close(ctx, ch.Path)
		return nil
	}
	before, ok := c.sync(ctx, ch.Path, text)
	if !ok {
		return nil
	}
	// Until this change's diagnostics are in, what the file had wrong
	// before it stays the baseline: a check that times out leaves what
	// the change brought to the next.
	c.setBase(ch.Path, baseline)
	after, ok := c.awaitFresh(ctx, ch.Path, before.seq)
	if !ok {
		return nil
	}
	c.setBase(ch.Path, after.diags)
	return m.introduced(ch.Path, after.text, baseline, after.diags)
}

// introduced returns the diagnostics of after that baseline does not
// have, of the severities reported. A diagnostic is the same as one
// before when its severity, source and message are: an edit moves lines.
func (m *Manager) introduced(path, text string, baseline, after []protocol.Diagnostic) []found {
	type key struct {
		sev          protocol.DiagnosticSeverity
		source, text string
	}
	had := map[key]int{}
	for _, d := range baseline {
		had[key{d.Severity, d.Source, d.Message}]++
	}
	var out []found
	for _, d := range after {
		k := key{d.Severity, d.Source, d.Message}
		if had[k] > 0 {
			had[k]--
			continue
		}
		if !m.reported(d.Severity) {
			continue
		}
		out = append(out, foundOf(path, text, d))
	}
	return out
}

// reported reports whether diagnostics of severity sev are reported:
// errors (and those that say none), and warnings when asked for.
func (m *Manager) reported(sev protocol.DiagnosticSeverity) bool {
	return sev == 0 || sev == protocol.SeverityError || sev == protocol.SeverityWarning && m.opts.Warnings
}

// byteColumn turns a position's character (UTF-16 code units, as the
// protocol counts them) on line of text into a byte offset.
func byteColumn(text string, line, char int) int {
	for i := 0; i < line; i++ {
		nl := strings.IndexByte(text, '\n')
		if nl < 0 {
			return char
		}
		text = text[nl+1:]
	}
	units, off := 0, 0
	for off < len(text) && units < char {
		r, size := utf8.DecodeRuneInString(text[off:])
		if r == '\n' {
			break
		}
		units += len(utf16.Encode([]rune{r}))
		off += size
	}
	return off
}
