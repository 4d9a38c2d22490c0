package eval

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"lathe/orchestrator/session"
	"lathe/prompts/human"
)

// Show writes experiment e for people: a header, then a table per model
// (success rate, medians, speeds, recoveries, failures) with its tasks.
func Show(w io.Writer, e session.Experiment, now time.Time) error {
	// The version on a line of its own: a long one (a pseudo-version)
	// would wrap inside its date on an 80- or 100-column terminal.
	fmt.Fprintf(w, "experiment %d · %s · repeat %d\n%s\n", e.ID, e.Suite, e.Repeat, e.Version)
	fmt.Fprintf(w, "started %s · %s\n", e.Created.Local().Format("2006-01-02 15:04"), completion(e, now))
	for _, t := range e.Tasks {
		if t.Skipped != "" {
			fmt.Fprintf(w, "skipped %s: %s\n", t.Name, t.Skipped)
		}
	}
	for _, s := range Summarize(e, now) {
		fmt.Fprintln(w)
		showModel(w, s, e.Repeat)
	}
	fmt.Fprintln(w)
	WriteCharts(w, ShowCharts(e, now), ChartWidth)
	return nil
}

// ChartWidth is the width the charts of show and compare are drawn to.
const ChartWidth = 80

// completion says whether e is done.
func completion(e session.Experiment, now time.Time) string {
	if !e.Completed.IsZero() {
		return "finished in " + e.Completed.Sub(e.Created).Round(time.Second).String()
	}
	var stale, running, pending int
	for _, a := range Latest(e.Attempts) {
		switch {
		case Stale(a, now):
			stale++
		case a.State == session.AttemptRunning:
			running++
		case a.State == session.AttemptCreated:
			pending++
		}
	}
	parts := []string{"not finished"}
	if running > 0 {
		parts = append(parts, fmt.Sprintf("%d running", running))
	}
	if pending > 0 {
		parts = append(parts, fmt.Sprintf("%d not run", pending))
	}
	if stale > 0 {
		parts = append(parts, fmt.Sprintf("%d stale", stale))
	}
	if stale+pending > 0 {
		parts = append(parts, fmt.Sprintf("lathe eval resume %d runs them", e.ID))
	}
	return strings.Join(parts, ", ")
}

func showModel(w io.Writer, s ModelSummary, repeat int) {
	m := s.Model
	about := []string{}
	for _, x := range []string{m.ParameterSize, m.Quantization} {
		if x != "" {
			about = append(about, x)
		}
	}
	if m.NumCtx > 0 {
		about = append(about, "num_ctx "+human.Thousands(m.NumCtx))
	}
	if m.Load > 0 {
		about = append(about, "loaded in "+human.Duration(m.Load).String())
	}
	fmt.Fprintf(w, "%s", m.Name)
	if len(about) > 0 {
		fmt.Fprintf(w, " (%s)", strings.Join(about, ", "))
	}
	fmt.Fprintln(w)
	rate := fmt.Sprintf("%d of %d", s.Met, s.Ended)
	if s.Ended > 0 {
		rate += fmt.Sprintf(" (%s", percent(s.Rate))
		if repeat > 1 {
			rate += fmt.Sprintf(", 95%% interval %s–%s", percent(s.Low), percent(s.High))
		}
		rate += ")"
	}
	fmt.Fprintf(w, "  goal met    %s\n", rate)
	if s.Ended > 0 {
		fmt.Fprintf(w, "  median      %s · %s tokens · %s", human.Plural(int(math.Round(s.MedianTurns)), "turn"),
			human.Thousands(int(s.MedianTokens)), human.Duration(s.MedianWall))
		if s.PrefillRate > 0 || s.DecodeRate > 0 {
			fmt.Fprintf(w, " · prefill %s tok/s · decode %s tok/s", human.Thousands(int(s.PrefillRate)),
				human.Thousands(int(s.DecodeRate)))
		}
		fmt.Fprintf(w, "\n  recoveries  %d\n", s.Recoveries)
	}
	if len(s.Failures) > 0 {
		fmt.Fprintf(w, "  failed      %s\n", failures(s.Failures))
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  task\tresult\tturns\ttokens\ttime")
	for _, t := range s.Tasks {
		if t.Ended == 0 {
			fmt.Fprintf(tw, "  %s\t%s\t\t\t\n", t.Task, t.Status)
			continue
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\n", t.Task, t.Status, strconv.FormatFloat(t.Turns, 'f', -1, 64),
			human.Thousands(int(t.Tokens)), human.Duration(t.Wall))
	}
	tw.Flush()
}

func percent(f float64) string { return fmt.Sprintf("%.0f%%", 100*f) }

// failures is "2 limit, 1 timeout", by reason.
func failures(m map[string]int) string {
	reasons := make([]string, 0, len(m))
	for r := range m {
		reasons = append(reasons, r)
	}
	slices.Sort(reasons)
	var parts []string
	for _, r := range reasons {
		parts = append(parts, fmt.Sprintf("%d %s", m[r], r))
	}
	return strings.Join(parts, ", ")
}

// experimentJSON is lathe eval show --json.
type experimentJSON struct {
	ID        int64          `json:"id"`
	Suite     string         `json:"suite"`
	Repeat    int            `json:"repeat"`
	Jobs      int            `json:"jobs"`
	Sandbox   string         `json:"sandbox"`
	Version   string         `json:"version"`
	Created   time.Time      `json:"created"`
	Completed *time.Time     `json:"completed"`
	Skipped   []skippedJSON  `json:"skipped"`
	Models    []ModelSummary `json:"models"`
	Attempts  []attemptJSON  `json:"attempts"`
}

type skippedJSON struct {
	Task   string `json:"task"`
	Reason string `json:"reason"`
}

// attemptJSON is one try of an attempt, as --json and --csv show it.
type attemptJSON struct {
	ID               int64          `json:"id"`
	Model            string         `json:"model"`
	Task             string         `json:"task"`
	Rep              int            `json:"rep"`
	Try              int            `json:"try"`
	Latest           bool           `json:"latest"` // the try that counts
	State            string         `json:"state"`  // created, running, stale, finished, failed
	GoalMet          *bool          `json:"goal_met"`
	StopReason       string         `json:"stop_reason"`
	FailureReason    string         `json:"failure_reason"`
	Failure          string         `json:"failure"`
	SessionID        string         `json:"session_id"`
	Options          map[string]any `json:"options"`
	Turns            int            `json:"turns"`
	ToolCalls        int            `json:"tool_calls"`
	PromptTokens     int            `json:"prompt_tokens"`
	CompletionTokens int            `json:"completion_tokens"`
	Recoveries       int            `json:"recoveries"`
	WallMS           int64          `json:"wall_ms"`
	LoadMS           int64          `json:"load_ms"`
	PrefillMS        int64          `json:"prefill_ms"`
	DecodeMS         int64          `json:"decode_ms"`
	PrefillTPS       float64        `json:"prefill_tps"`
	DecodeTPS        float64        `json:"decode_tps"`
	CheckExit        *int           `json:"check_exit"`
	CheckOutput      string         `json:"check_output"`
	Reward           *float64       `json:"reward"`
	Trajectory       string         `json:"trajectory"`
	Started          *time.Time     `json:"started"`
	Completed        *time.Time     `json:"completed"`
}

func attemptsJSON(e session.Experiment, now time.Time) []attemptJSON {
	latest := Latest(e.Attempts)
	out := make([]attemptJSON, 0, len(e.Attempts))
	for _, a := range e.Attempts {
		state := string(a.State)
		if Stale(a, now) {
			state = "stale"
		}
		r := a.Result
		out = append(out, attemptJSON{ID: a.ID, Model: a.Model, Task: a.Task, Rep: a.Rep, Try: a.Try,
			Latest: latest[session.Slot{Model: a.Model, Task: a.Task, Rep: a.Rep}].ID == a.ID, State: state,
			GoalMet: a.GoalMet, StopReason: a.StopReason, FailureReason: a.FailureReason, Failure: a.Failure,
			SessionID: a.SessionID, Options: a.Options, Turns: r.Turns, ToolCalls: r.ToolCalls,
			PromptTokens: r.PromptTokens, CompletionTokens: r.CompletionTokens, Recoveries: r.Recoveries,
			WallMS: r.Wall.Milliseconds(), LoadMS: r.Load.Milliseconds(), PrefillMS: r.Prefill.Milliseconds(),
			DecodeMS: r.Decode.Milliseconds(), PrefillTPS: r.PrefillRate, DecodeTPS: r.DecodeRate,
			CheckExit: a.CheckExit, CheckOutput: a.CheckOutput, Reward: a.Reward, Trajectory: a.Trajectory,
			Started:   timeOrNil(a.Started),
			Completed: timeOrNil(a.Completed)})
	}
	return out
}

func timeOrNil(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

// ShowJSON writes experiment e as one JSON object: its settings, the
// summary of each model and every try of every attempt.
func ShowJSON(w io.Writer, e session.Experiment, now time.Time) error {
	out := experimentJSON{ID: e.ID, Suite: e.Suite, Repeat: e.Repeat, Jobs: e.Jobs, Sandbox: e.Sandbox,
		Version: e.Version, Created: e.Created, Completed: timeOrNil(e.Completed), Skipped: []skippedJSON{},
		Models: Summarize(e, now), Attempts: attemptsJSON(e, now)}
	for _, t := range e.Tasks {
		if t.Skipped != "" {
			out.Skipped = append(out.Skipped, skippedJSON{t.Name, t.Skipped})
		}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// csvHeader are the columns of ShowCSV.
var csvHeader = []string{"experiment", "model", "task", "rep", "try", "latest", "state", "goal_met", "stop_reason",
	"failure_reason", "turns", "tool_calls", "prompt_tokens", "completion_tokens", "recoveries", "wall_ms",
	"load_ms", "prefill_ms", "decode_ms", "prefill_tps", "decode_tps", "check_exit", "session_id", "num_ctx",
	"temperature", "started", "completed"}

// ShowCSV writes every try of every attempt of e as a CSV row.
func ShowCSV(w io.Writer, e session.Experiment, now time.Time) error {
	cw := csv.NewWriter(w)
	cw.Write(csvHeader)
	for _, a := range attemptsJSON(e, now) {
		cw.Write([]string{strconv.FormatInt(e.ID, 10), a.Model, a.Task, strconv.Itoa(a.Rep), strconv.Itoa(a.Try),
			strconv.FormatBool(a.Latest), a.State, boolCell(a.GoalMet), a.StopReason, a.FailureReason,
			strconv.Itoa(a.Turns), strconv.Itoa(a.ToolCalls), strconv.Itoa(a.PromptTokens),
			strconv.Itoa(a.CompletionTokens), strconv.Itoa(a.Recoveries), strconv.FormatInt(a.WallMS, 10),
			strconv.FormatInt(a.LoadMS, 10), strconv.FormatInt(a.PrefillMS, 10), strconv.FormatInt(a.DecodeMS, 10),
			strconv.FormatFloat(a.PrefillTPS, 'f', 1, 64), strconv.FormatFloat(a.DecodeTPS, 'f', 1, 64),
			intCell(a.CheckExit), a.SessionID, optionCell(a.Options, "num_ctx"), optionCell(a.Options, "temperature"),
			timeCell(a.Started), timeCell(a.Completed)})
	}
	cw.Flush()
	return cw.Error()
}

func boolCell(b *bool) string {
	if b == nil {
		return ""
	}
	return strconv.FormatBool(*b)
}

func intCell(n *int) string {
	if n == nil {
		return ""
	}
	return strconv.Itoa(*n)
}

func optionCell(opts map[string]any, key string) string {
	if v, ok := opts[key]; ok {
		return fmt.Sprint(v)
	}
	return ""
}

func timeCell(t *time.Time) string {
	if t == nil {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

// Compare writes, for each model the two experiments share (or their one
// model each), how its success rate changed and the tasks whose result
// did.
func Compare(w io.Writer, a, b session.Experiment, now time.Time) error {
	sa, sb := Summarize(a, now), Summarize(b, now)
	pairs := pairModels(sa, sb)
	if len(pairs) == 0 {
		return fmt.Errorf("experiments %d and %d share no model to compare", a.ID, b.ID)
	}
	fmt.Fprintf(w, "experiment %d (%s) → experiment %d (%s)\n", a.ID, a.Suite, b.ID, b.Suite)
	for _, p := range pairs {
		fmt.Fprintln(w)
		name := p[0].Model.Name
		if p[1].Model.Name != name {
			name += " → " + p[1].Model.Name
		}
		fmt.Fprintf(w, "%s: goal met %d/%d (%s) → %d/%d (%s)\n", name, p[0].Met, p[0].Ended, percent(p[0].Rate),
			p[1].Met, p[1].Ended, percent(p[1].Rate))
		fmt.Fprintf(w, "  median turns %s → %s · tokens %s → %s · time %s → %s\n",
			strconv.FormatFloat(p[0].MedianTurns, 'f', -1, 64), strconv.FormatFloat(p[1].MedianTurns, 'f', -1, 64),
			human.Thousands(int(p[0].MedianTokens)), human.Thousands(int(p[1].MedianTokens)),
			human.Duration(p[0].MedianWall), human.Duration(p[1].MedianWall))
		compareTasks(w, p[0], p[1])
	}
	fmt.Fprintln(w)
	WriteCharts(w, CompareCharts(a, b, now), ChartWidth)
	return nil
}

// pairModels pairs the summaries of the models both have, in a's order;
// two experiments of one model each pair those.
func pairModels(a, b []ModelSummary) [][2]ModelSummary {
	var out [][2]ModelSummary
	for _, x := range a {
		if i := slices.IndexFunc(b, func(y ModelSummary) bool { return y.Model.Name == x.Model.Name }); i >= 0 {
			out = append(out, [2]ModelSummary{x, b[i]})
		}
	}
	if len(out) == 0 && len(a) == 1 && len(b) == 1 {
		out = append(out, [2]ModelSummary{a[0], b[0]})
	}
	return out
}

// compareTasks writes a row per task of either: its result in each, and
// what changed.
func compareTasks(w io.Writer, a, b ModelSummary) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	var names []string
	for _, t := range append(slices.Clone(a.Tasks), b.Tasks...) {
		if !slices.Contains(names, t.Task) {
			names = append(names, t.Task)
		}
	}
	same, headed := 0, false
	for _, n := range names {
		ta, inA := findTask(a.Tasks, n)
		tb, inB := findTask(b.Tasks, n)
		before, after := "—", "—"
		if inA {
			before = ta.Status
		}
		if inB {
			after = tb.Status
		}
		mark := change(ta, tb, inA, inB)
		if mark == "" && before == after {
			same++
			continue
		}
		if !headed { // the header only above a row: none when nothing changed
			fmt.Fprintln(tw, "  task\tbefore\tafter\t")
			headed = true
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", n, before, after, mark)
	}
	tw.Flush()
	if same > 0 {
		fmt.Fprintf(w, "  (%s the same)\n", human.Plural(same, "task"))
	}
}

func findTask(ts []TaskSummary, name string) (TaskSummary, bool) {
	i := slices.IndexFunc(ts, func(t TaskSummary) bool { return t.Task == name })
	if i < 0 {
		return TaskSummary{}, false
	}
	return ts[i], true
}

// change is "better" or "worse" when the share of attempts meeting the
// goal moved; "" otherwise.
func change(a, b TaskSummary, inA, inB bool) string {
	if !inA || !inB || a.Ended == 0 || b.Ended == 0 {
		return ""
	}
	ra, rb := float64(a.Met)/float64(a.Ended), float64(b.Met)/float64(b.Ended)
	switch {
	case rb > ra:
		return "better"
	case rb < ra:
		return "worse"
	}
	return ""
}
