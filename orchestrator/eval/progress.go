package eval

import (
	"fmt"
	"io"
	"strings"
	"time"

	"lathe/orchestrator/session"
	"lathe/prompts/human"
)

// Tally counts a model's attempts as they end.
type Tally struct {
	Model  string
	Total  int // attempts to run
	Done   int
	Met    int // with their goal met
	Failed int
	Start  time.Time
}

func (t *Tally) add(end session.AttemptEnd) {
	t.Done++
	if end.GoalMet != nil && *end.GoalMet {
		t.Met++
	}
	if end.State == session.AttemptFailed {
		t.Failed++
	}
}

// eta is the time the attempts left should take, at the pace so far; 0
// before the first ends.
func (t Tally) eta(now time.Time) time.Duration {
	if t.Done == 0 {
		return 0
	}
	return now.Sub(t.Start) / time.Duration(t.Done) * time.Duration(t.Total-t.Done)
}

// Progress is told how an experiment goes.
type Progress interface {
	Began(id int64, e session.Experiment, tasks int)
	Warn(text string)
	ModelStarted(t Tally)
	AttemptEnded(t Tally, a session.Attempt, end session.AttemptEnd)
	ModelDone(t Tally)
}

type quiet struct{}

func (quiet) Began(int64, session.Experiment, int)                    {}
func (quiet) Warn(string)                                             {}
func (quiet) ModelStarted(Tally)                                      {}
func (quiet) AttemptEnded(Tally, session.Attempt, session.AttemptEnd) {}
func (quiet) ModelDone(Tally)                                         {}

// NewProgress writes an experiment's progress to w: a bar per model,
// redrawn in place, when w is a terminal; a plain line per attempt
// otherwise.
func NewProgress(w io.Writer, terminal bool) Progress {
	return &printer{w: w, bar: terminal, now: time.Now}
}

type printer struct {
	w     io.Writer
	bar   bool
	now   func() time.Time
	drawn bool // a bar is on the current line
}

func (p *printer) Began(id int64, e session.Experiment, tasks int) {
	for _, t := range e.Tasks {
		if t.Skipped != "" {
			p.line(fmt.Sprintf("skipped %s: %s", t.Name, t.Skipped))
		}
	}
	p.line(fmt.Sprintf("experiment %d: %s, %s × %s × %d (lathe eval show %d)", id, e.Suite,
		human.Plural(len(e.Models), "model"), human.Plural(tasks, "task"), e.Repeat, id))
}

func (p *printer) Warn(text string) { p.line("warning: " + text) }

func (p *printer) ModelStarted(t Tally) {
	if p.bar {
		p.draw(t)
		return
	}
	p.line(fmt.Sprintf("%s: %s to run", t.Model, human.Plural(t.Total, "attempt")))
}

func (p *printer) AttemptEnded(t Tally, a session.Attempt, end session.AttemptEnd) {
	if p.bar {
		p.draw(t)
		return
	}
	p.line(fmt.Sprintf("%s %s #%d: %s (%s, %s) [%d/%d]", t.Model, a.Task, a.Rep, verdict(end.State, end.GoalMet,
		end.FailureReason, end.StopReason), human.Plural(end.Result.Turns, "turn"), human.Duration(end.Result.Wall), t.Done, t.Total))
}

func (p *printer) ModelDone(t Tally) {
	if p.bar {
		p.draw(t)
		fmt.Fprintln(p.w)
		p.drawn = false
		return
	}
	p.line(fmt.Sprintf("%s: goal met in %d of %d, in %s", t.Model, t.Met, t.Done, p.now().Sub(t.Start).Round(time.Second)))
}

// line writes a line of its own, under the bar if one is drawn.
func (p *printer) line(s string) {
	if p.drawn {
		fmt.Fprint(p.w, "\r\x1b[2K")
		p.drawn = false
	}
	fmt.Fprintln(p.w, s)
}

const barWidth = 24

// draw draws t's bar over the current line.
func (p *printer) draw(t Tally) {
	filled := 0
	if t.Total > 0 {
		filled = barWidth * t.Done / t.Total
	}
	now := p.now()
	s := fmt.Sprintf("%-16s %s%s %d/%d · met %d · %s", t.Model, strings.Repeat("█", filled),
		strings.Repeat("░", barWidth-filled), t.Done, t.Total, t.Met, now.Sub(t.Start).Round(time.Second))
	if eta := t.eta(now); eta > 0 && t.Done < t.Total {
		s += " · ETA " + eta.Round(time.Second).String()
	}
	fmt.Fprint(p.w, "\r\x1b[2K"+s)
	p.drawn = true
}

// verdict is how an attempt ended, in a few words.
func verdict(state session.AttemptState, met *bool, reason, stop string) string {
	if reason == session.FailLimit && stop != "" {
		reason += " (" + stop + ")"
	}
	switch {
	case state == session.AttemptFinished && met != nil && *met:
		return "goal met"
	case state == session.AttemptFinished:
		return "goal not met"
	case met != nil && *met:
		return "goal met, then " + reason
	}
	return "failed: " + reason
}
