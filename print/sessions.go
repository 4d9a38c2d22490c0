package print

import (
	"fmt"
	"io"
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
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\n", s.ID[:min(8, len(s.ID))], Ago(now.Sub(s.Updated)), s.Model, s.Messages, last, s.Title)
	}
	return tw.Flush()
}

// Ago writes how long ago something was: "5m", "3h", "2d".
func Ago(d time.Duration) string {
	switch {
	case d < time.Minute:
		return "now"
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	}
	return fmt.Sprintf("%dd", int(d.Hours()/24))
}
