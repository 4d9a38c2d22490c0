package tools

import (
	"errors"
	"fmt"
	"lathe/prompts"
	"strconv"
	"strings"
)

// editError is why an edit cannot be made: the error result Run returns,
// and the error Preview returns.
type editError struct {
	summary string // for Result.Summary
	msg     string // for the model
	err     error  // the cause, if any
}

func (e *editError) Error() string { return e.msg }
func (e *editError) Unwrap() error { return e.err }

// result is the error result of an edit refused for e.
func (e *editError) result() Result { return Errorf(e.summary, e.msg) }

// matchFailure explains, for the model, why applyEdit found no single
// place to replace old in rel, whose content is content.
func matchFailure(rel, content, old string, err error) *editError {
	if amb, ok := errors.AsType[*ambiguousError](err); ok {
		how := ""
		if amb.loose {
			how = " ignoring indentation, and nowhere exactly"
		}
		return &editError{"ambiguous", fmt.Sprintf(
			"old_string matches %d times in %s%s (at %s); the file was not changed. "+
				"Include more surrounding lines to make it unique, or set replace_all to true.",
			amb.count, rel, how, lineList(amb.lines, amb.count)), err}
	}
	lines := splitLines(content)
	if ie, ok := errors.AsType[*indentError](err); ok {
		return &editError{"indentation", fmt.Sprintf(
			"old_string matches %s of %s only ignoring indentation, and its indentation does not map onto the file's "+
				"(lines indented alike in old_string are not alike in the file, or a deeper one is not deeper); "+
				"the file was not changed. Copy old_string exactly from these lines (without the line numbers):\n%s",
			rangeList([]lineRange{ie.at}), rel, showLines(lines, ie.at)), err}
	}
	msg := fmt.Sprintf("old_string was not found in %s; the file was not changed. ", rel)
	if r, ok := similarRegion(content, old); ok {
		return &editError{"no match", msg + fmt.Sprintf(
			"The most similar text is at %s, %s; "+
				"copy old_string exactly from it (without the line numbers):\n%s",
			rangeList([]lineRange{r}), prompts.Hint(prompts.HintAsReadShows), showLines(lines, r)), err}
	}
	return &editError{"no match", msg + "It must match exactly, whitespace and indentation included: " +
		prompts.Hint(prompts.HintReadRegion) + ".", err}
}

// lineList formats the first line numbers of total as "line 3" or
// "lines 3, 8, 20, ...".
func lineList(lines []int, total int) string {
	if total == 1 {
		return "line " + strconv.Itoa(lines[0])
	}
	parts := make([]string, 0, min(len(lines), maxListedLines)+1)
	for _, l := range lines[:min(len(lines), maxListedLines)] {
		parts = append(parts, strconv.Itoa(l))
	}
	if total > len(parts) {
		parts = append(parts, "...")
	}
	return "lines " + strings.Join(parts, ", ")
}

// rangeList formats runs of lines as "line 12", "lines 12-18" or
// "lines 3-5, 9-11", the first maxListedLines of them.
func rangeList(rs []lineRange) string {
	if len(rs) == 1 && rs[0].end-rs[0].start == 1 {
		return "line " + rs[0].String()
	}
	parts := make([]string, 0, min(len(rs), maxListedLines)+1)
	for _, r := range rs[:min(len(rs), maxListedLines)] {
		parts = append(parts, r.String())
	}
	if len(rs) > maxListedLines {
		parts = append(parts, "...")
	}
	return "lines " + strings.Join(parts, ", ")
}
