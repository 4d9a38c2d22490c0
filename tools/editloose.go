package tools

import (
	"fmt"
	"strings"
)

// The loose match is edit_file's fallback when old_string does not occur
// exactly. Both texts are compared as whole lines, each with its leading
// and trailing whitespace ignored; old_string's first and last lines count
// as whole lines even if the model cut them mid-line. The matched lines of
// the file are replaced by new_string's lines, re-indented from the model's
// indentation to the file's (see indentMap), each ending as the file's
// lines end (\n or \r\n).

// lineRange is a run of lines of a file, 0-based, end exclusive.
type lineRange struct{ start, end int }

// String formats r 1-based, for the model: "12-18", or "12" for one line.
func (r lineRange) String() string {
	if r.end-r.start == 1 {
		return fmt.Sprint(r.start + 1)
	}
	return fmt.Sprintf("%d-%d", r.start+1, r.end)
}

// indentError is returned by replaceLoose when old_string matches ignoring
// whitespace but its indentation cannot be mapped onto the file's: a line
// nested deeper in old_string is not deeper in the file, or two lines
// indented alike in old_string are not alike in the file.
type indentError struct{ at lineRange }

func (e *indentError) Error() string { return "indentation does not map at lines " + e.at.String() }

// splitLines splits s into lines, each keeping its "\n"; the last one has
// none when s does not end with a newline. An empty s has no lines.
func splitLines(s string) []string {
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// textLines splits old_string or new_string into lines without their
// endings. One final newline ends the last line rather than starting an
// empty one; an empty text has no lines.
func textLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	return lines
}

// lineKey is what the loose match compares of a line.
func lineKey(line string) string { return strings.Trim(line, " \t\r\n\v\f") }

func lineKeys(lines []string) []string {
	keys := make([]string, len(lines))
	for i, l := range lines {
		keys[i] = lineKey(l)
	}
	return keys
}

// looseMatches returns the indexes where runs of lines equal to pat begin
// in keys, overlapping runs included, in O(len(keys)+len(pat)) (the
// Knuth-Morris-Pratt search, over lines instead of bytes). pat must not be
// empty.
func looseMatches(keys, pat []string) []int {
	fail := make([]int, len(pat)) // fail[i]: longest proper border of pat[:i+1]
	for i, k := 1, 0; i < len(pat); i++ {
		for k > 0 && pat[i] != pat[k] {
			k = fail[k-1]
		}
		if pat[i] == pat[k] {
			k++
		}
		fail[i] = k
	}
	var starts []int
	for i, k := 0, 0; i < len(keys); i++ {
		for k > 0 && keys[i] != pat[k] {
			k = fail[k-1]
		}
		if keys[i] == pat[k] {
			k++
		}
		if k == len(pat) {
			starts = append(starts, i-k+1)
			k = fail[k-1]
		}
	}
	return starts
}

// looseEdit is what replaceLoose did.
type looseEdit struct {
	matched    []lineRange // the lines replaced, in the original content
	reindented bool        // new_string's indentation was changed
}

// replaceLoose is the loose match: it replaces the lines of content that
// match old ignoring whitespace with new, re-indented. Without all there
// must be exactly one such run of lines, counting overlapping ones; with
// all, every non-overlapping run is replaced, each re-indented on its own,
// and if the indentation of any one of them does not map, none is. It
// returns the new content and the lines, in it, where replacements
// start. Errors are errNoMatch, *ambiguousError and *indentError.
func replaceLoose(content, old, new string, all bool) (string, []int, looseEdit, error) {
	oldLines := textLines(old)
	pat := lineKeys(oldLines)
	if strings.Join(pat, "") == "" {
		return content, nil, looseEdit{}, errNoMatch // blank lines alone match too much
	}
	lines := splitLines(content)
	starts := looseMatches(lineKeys(lines), pat)
	switch {
	case len(starts) == 0:
		return content, nil, looseEdit{}, errNoMatch
	case len(starts) > 1 && !all:
		amb := &ambiguousError{count: len(starts), loose: true}
		for _, s := range starts[:min(len(starts), maxListedLines)] {
			amb.lines = append(amb.lines, s+1)
		}
		return content, nil, looseEdit{}, amb
	}
	r := looseReplacer{lines: lines, oldLines: oldLines, newLines: textLines(new)}
	return r.replace(nonOverlapping(starts, len(pat)))
}

// nonOverlapping keeps the starts of runs of n lines that do not overlap
// an earlier kept one, as strings.ReplaceAll does.
func nonOverlapping(starts []int, n int) []lineRange {
	var kept []lineRange
	for _, s := range starts {
		if len(kept) == 0 || s >= kept[len(kept)-1].end {
			kept = append(kept, lineRange{s, s + n})
		}
	}
	return kept
}

// looseReplacer replaces matched runs of a file's lines by new_string.
type looseReplacer struct {
	lines              []string // the file's, with endings
	oldLines, newLines []string // the model's, without endings
}

func (r looseReplacer) replace(matched []lineRange) (string, []int, looseEdit, error) {
	units := unitsOf(r.lines, r.oldLines, r.newLines)
	var b strings.Builder
	var at []int
	edit := looseEdit{matched: matched}
	done, line := 0, 1
	for _, m := range matched {
		im, ok := newIndentMap(r.oldLines, r.lines[m.start:m.end], units)
		if !ok {
			return strings.Join(r.lines, ""), nil, looseEdit{}, &indentError{at: m}
		}
		edit.reindented = edit.reindented || !im.identity
		for _, l := range r.lines[done:m.start] {
			b.WriteString(l)
		}
		line += m.start - done
		at = append(at, line)
		n := r.writeNew(&b, im, m)
		line += n
		done = m.end
	}
	for _, l := range r.lines[done:] {
		b.WriteString(l)
	}
	return b.String(), at, edit, nil
}

// writeNew writes new_string's lines, re-indented by im, in place of the
// lines m, and returns how many newlines it wrote. Each line ends as the
// first matched line does; the last ends as the last matched line does, so
// that a file without a final newline keeps having none.
func (r looseReplacer) writeNew(b *strings.Builder, im indentMap, m lineRange) int {
	eol := "\n"
	if strings.HasSuffix(r.lines[m.start], "\r\n") {
		eol = "\r\n"
	}
	lastEnds := strings.HasSuffix(r.lines[m.end-1], "\n")
	n := 0
	for i, l := range r.newLines {
		b.WriteString(im.apply(l))
		if i < len(r.newLines)-1 || lastEnds {
			b.WriteString(eol)
			n++
		}
	}
	return n
}
