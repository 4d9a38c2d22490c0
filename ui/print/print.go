// Package print shows a one-shot (-p) run: the answer or a JSON result on
// stdout, a line per tool call and the warnings on stderr, all from the
// agent's events; and the list of saved sessions.
package print

import (
	"fmt"
	"io"
	"lathe/prompts/human"
	"strings"
	"sync"

	"charm.land/lipgloss/v2"

	"lathe/orchestrator"
	"lathe/orchestrator/hooks"
	"lathe/orchestrator/plan"
)

// Format is a one-shot output format.
type Format string

const (
	FormatText       Format = "text"
	FormatJSON       Format = "json"
	FormatStreamJSON Format = "stream-json"
)

// ParseFormat checks an --output-format value.
func ParseFormat(s string) (Format, error) {
	switch f := Format(s); f {
	case FormatText, FormatJSON, FormatStreamJSON:
		return f, nil
	}
	return "", fmt.Errorf("unknown output format %q: use text, json or stream-json", s)
}

// Printer prints a one-shot run. stdout gets the answer only: the final
// text, one JSON object, or one JSON event per line. stderr gets a line per
// tool call and warnings. Thinking is never printed.
type Printer struct {
	format   Format
	stdout   io.Writer
	stderr   io.Writer
	marks    marks
	events   *eventEncoder // stream-json only
	terminal bool          // stdout is a terminal
	progress *progress     // nil but in text format on a terminal's stderr
	mu       sync.Mutex    // the progress line is redrawn between events
	denied   int           // calls the approval rules did not allow
	// diagnostics are the problems the run's changes brought (json),
	// at most maxDiagnostics.
	diagnostics []string
	// arrived is the text of the turn streaming, for a terminal to be
	// shown when the run stops before its answer (interrupted).
	arrived     strings.Builder
	arrivedTurn int
}

// maxDiagnostics bounds the problems the json result lists.
const maxDiagnostics = 100

// Options say where a printer's output goes.
type Options struct {
	// Color styles the stderr lines.
	Color bool
	// Terminal says that stdout is a terminal: the answer is printed
	// without the control sequences a model's text may hold.
	Terminal bool
	// Progress says that stderr is a terminal: in text format, a line
	// there shows how long the model has been silent (see progress).
	Progress bool
}

// deniedHint follows the first call a one-shot run was not allowed to
// make: nobody is there to ask.
const deniedHint = "(lathe -p cannot ask: pass --yes, or allow it with an [approval] rule in your config)"

// New returns a printer.
func New(format Format, stdout, stderr io.Writer, opts Options) *Printer {
	h := &Printer{format: format, stdout: stdout, stderr: stderr, marks: newMarks(opts.Color), terminal: opts.Terminal}
	switch {
	case format == FormatStreamJSON:
		h.events = newEventEncoder(stdout)
	case format == FormatText && opts.Progress:
		h.progress = &progress{w: stderr, lock: &h.mu}
	}
	return h
}

// Event consumes one agent event.
func (h *Printer) Event(e orchestrator.Event) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.progress != nil {
		h.progress.event(e)
	}
	switch e := e.(type) {
	case orchestrator.TextDelta:
		if e.Turn != h.arrivedTurn {
			h.arrived.Reset()
			h.arrivedTurn = e.Turn
		}
		h.arrived.WriteString(e.Text)
	case orchestrator.ToolFinished:
		fmt.Fprintln(h.stderr, h.marks.toolLine(e))
		if d := e.Result.Diagnostics; d != nil {
			for _, line := range d.Lines {
				fmt.Fprintln(h.stderr, "  "+human.Line(line, 200))
			}
			if more := d.Total - len(d.Lines); more > 0 {
				fmt.Fprintf(h.stderr, "  (%d more)\n", more)
			}
			h.diagnostics = append(h.diagnostics, d.Lines[:min(len(d.Lines), maxDiagnostics-len(h.diagnostics))]...)
		}
		if e.NotApproved {
			if h.denied++; h.denied == 1 {
				fmt.Fprintln(h.stderr, deniedHint)
			}
		}
	case orchestrator.Warning:
		fmt.Fprintln(h.stderr, "lathe: warning: "+e.Text)
	case orchestrator.Spill:
		advice := ""
		if e.FitNumCtx > 0 {
			advice = ": set options.num_ctx in your config to use it"
		}
		fmt.Fprintf(h.stderr, "lathe: warning: %s%s\n", e.Text(), advice)
	case orchestrator.Compacted:
		fmt.Fprintf(h.stderr, "lathe: compacted the conversation: %s summarized for the model (%d → %d tokens)\n",
			human.Plural(e.Summarized, "older message"), e.Before, e.After)
	case orchestrator.ModeChanged:
		fmt.Fprintf(h.stderr, "lathe: %s mode → %s mode (%s)\n", e.From, e.To, human.Line(e.Reason, 100))
	case orchestrator.ImagesAttached:
		for _, img := range e.Images {
			fmt.Fprintf(h.stderr, "lathe: image %s %d×%d (%s, ~%s tokens) sent to the model\n",
				human.Visible(img.Name), img.Width, img.Height, human.Bytes(int64(img.Bytes)), human.Thousands(img.Tokens))
		}
	case orchestrator.ToolsChanged:
		for _, n := range e.Notes {
			fmt.Fprintln(h.stderr, "lathe: "+n)
		}
	case orchestrator.PlanProposed:
		fmt.Fprintf(h.stderr, "lathe: plan proposed: %s (%s)\n", human.Line(e.Plan.Summary, 100), human.Plural(len(e.Plan.Steps), "step"))
	case orchestrator.HookRan:
		h.hookLines(e)
	}
	if h.events != nil {
		h.events.event(e)
	}
}

// Start opens a stream-json stream with the session and the model the run
// uses; the other formats say nothing of them before the end.
func (h *Printer) Start(sessionID, model string) error {
	if h.format != FormatStreamJSON {
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return writeJSONLine(h.stdout, sessionStartJSON{Type: "session", SessionID: sessionID, Model: model})
}

// Finish prints the run's outcome to stdout: the answer in text format, the
// result object in the JSON formats. failure is the run's error, if any.
func (h *Printer) Finish(res orchestrator.Result, failure error) error {
	if h.progress != nil {
		h.progress.stop()
	}
	if h.format == FormatText {
		if res.StopReason == orchestrator.StopPlanned {
			_, err := io.WriteString(h.stdout, PlanText(res.Plan))
			return err
		}
		text := res.Text
		if res.StopReason != orchestrator.StopDone {
			// Someone is watching a run that stopped before its answer:
			// what arrived of the last reply is kept, as in the UI.
			if !h.terminal {
				return nil
			}
			text = h.arrived.String()
		}
		if text = strings.TrimSpace(text); text == "" {
			return nil
		}
		if h.terminal {
			text = forTerminal(text)
		}
		_, err := fmt.Fprintln(h.stdout, text)
		return err
	}
	out := newResultJSON(res, h.denied, failure)
	out.Diagnostics = h.diagnostics
	return writeJSONLine(h.stdout, out)
}

// PlanText is a plan as text: its summary, then its numbered steps, each
// with its status once the plan is under way.
func PlanText(p *plan.Plan) string {
	if p == nil {
		return ""
	}
	var b strings.Builder
	b.WriteString(strings.TrimSpace(p.Summary) + "\n\n")
	started := false
	for _, st := range p.Steps {
		started = started || st.Status != plan.Pending
	}
	if started {
		b.WriteString(p.Checklist())
		return b.String()
	}
	for i, st := range p.Steps {
		fmt.Fprintf(&b, "%d. %s\n", i+1, st.Text)
	}
	return b.String()
}

// marks styles the per-call lines on stderr.
type marks struct {
	ok, failed, denied, name lipgloss.Style
}

func newMarks(color bool) marks {
	if !color {
		return marks{}
	}
	return marks{
		ok:     lipgloss.NewStyle().Foreground(lipgloss.Green),
		failed: lipgloss.NewStyle().Foreground(lipgloss.Red),
		denied: lipgloss.NewStyle().Foreground(lipgloss.Yellow),
		name:   lipgloss.NewStyle().Bold(true),
	}
}

// toolLine is "✓ write_file test.txt: created, 1 line (3ms)"; a call that
// failed with an error says it, as the UI's card does: "✗ write_file
// new.txt: failed: ro/new.txt: permission denied (281µs)".
func (m marks) toolLine(e orchestrator.ToolFinished) string {
	var mark string
	switch e.Outcome {
	case orchestrator.OutcomeOK:
		mark = m.ok.Render("✓")
	case orchestrator.OutcomeDenied, orchestrator.OutcomeSkipped, orchestrator.OutcomeInterrupted:
		mark = m.denied.Render("⊘")
	default:
		mark = m.failed.Render("✗")
	}
	line := mark + " " + m.name.Render(e.Name)
	if e.Subject != "" {
		line += " " + human.Line(e.Subject, 80)
	}
	summary := e.Result.Summary
	if summary == "" {
		summary = string(e.Outcome)
	}
	line += ": " + summary
	if cause := failure(e); cause != "" && e.Outcome == orchestrator.OutcomeFailed {
		line += ": " + cause
	}
	if e.Duration > 0 {
		line += fmt.Sprintf(" (%s)", human.Duration(e.Duration))
	}
	return line
}

// maxCause is how long the cause of a failure on a call's line may be.
const maxCause = 200

// failure is the cause of a call that failed with an error, its first
// line, when it says more than the summary; "" for a call that did not
// (a command that exited non-zero tells its output, not an error).
func failure(e orchestrator.ToolFinished) string {
	msg, ok := strings.CutPrefix(e.Result.Content, "error: ")
	if !ok {
		return ""
	}
	msg, _, _ = strings.Cut(msg, "\n")
	if msg = human.Line(msg, maxCause); msg == e.Result.Summary {
		return ""
	}
	return msg
}

// hookLines tells on stderr what hooks printed for the user, and what
// they blocked or stopped; what went wrong with them is a warning of its
// own, told once.
func (h *Printer) hookLines(e orchestrator.HookRan) {
	on := ""
	if e.Tool != "" {
		on = " " + e.Tool
	}
	for _, r := range e.Outcome.Runs {
		if r.Output != "" && r.Status != hooks.StatusBlocked {
			fmt.Fprintf(h.stderr, "lathe: %s hook%s: %s\n", e.Event, on, human.Visible(strings.TrimSpace(r.Output)))
		}
	}
	o := e.Outcome
	switch {
	case o.Stop:
		fmt.Fprintf(h.stderr, "lathe: %s hook%s stopped the request: %s\n", e.Event, on, human.Visible(o.StopReason))
	case o.Block:
		fmt.Fprintf(h.stderr, "lathe: %s hook blocked%s: %s\n", e.Event, on, human.Visible(strings.TrimSpace(o.Reason)))
	}
}
