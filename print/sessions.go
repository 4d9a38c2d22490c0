package print

import (
	"fmt"
	"io"
	"lathe/internal/human"
	"lathe/session"
	"text/tabwriter"
	"time"
)

// Sessions writes the sessions as a table: id, age, model, messages,
// how the last run ended, title.
func Sessions(w io.Writer, list []session.Summary, now time.Time) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tAGE\tMODEL\tMESSAGES\tLAST RUN\tTITLE")
	for _, s := range list {
		last := "-"
		if s.LastRun != nil {
			last = string(s.LastRun.Ending())
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\n", s.ID[:min(8, len(s.ID))], human.Ago(now.Sub(s.Updated)), s.Model, s.Messages, last, s.Title)
	}
	return tw.Flush()
}
