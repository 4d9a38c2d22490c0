package ui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"lathe/prompts/human"
)

// problems are the lines a card shows of the problems its call brought
// into the files it changed, as the language servers found them: their
// count, folded; the problems themselves, expanded (where the output
// shown does not list them already).
func (c *toolCard) problems(width int, st *theme) []string {
	if c.end == nil || c.end.Result.Diagnostics == nil {
		return nil
	}
	d := c.end.Result.Diagnostics
	head := fmt.Sprintf("%s from %s", human.Plural(d.Total, "new problem"), strings.Join(d.Servers, ", "))
	if !c.expanded {
		return []string{indent + "  " + st.warn.Render("⚠ "+head) + st.meta.Render(" (ctrl+o to show)")}
	}
	if c.start.Preview == "" {
		return nil // the output shown ends with them
	}
	out := []string{indent + "  " + st.warn.Render("⚠ "+head+":")}
	for _, l := range d.Lines {
		out = append(out, indent+"    "+st.output.Render(ansi.Truncate(tabsToSpaces(l), width-6, "…")))
	}
	if more := d.Total - len(d.Lines); more > 0 {
		out = append(out, indent+"    "+st.meta.Render(fmt.Sprintf("… %d more", more)))
	}
	return out
}
