package eval

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"lathe/orchestrator/session"
)

func TestWilson(t *testing.T) {
	// Reference values: Wilson score interval, z = 1.96.
	for _, c := range []struct {
		k, n      int
		low, high float64
	}{
		{0, 10, 0, 0.2775}, {10, 10, 0.7225, 1}, {5, 10, 0.2366, 0.7634}, {4, 6, 0.3000, 0.9032},
		{1, 1, 0.2065, 1}, {0, 0, 0, 1},
	} {
		low, high := Wilson(c.k, c.n)
		if math.Abs(low-c.low) > 5e-4 || math.Abs(high-c.high) > 5e-4 {
			t.Errorf("Wilson(%d, %d) = %.4f–%.4f, want %.4f–%.4f", c.k, c.n, low, high, c.low, c.high)
		}
	}
}

func TestMedian(t *testing.T) {
	if m := median([]int{5, 1, 3}); m != 3 {
		t.Errorf("odd: %v", m)
	}
	if m := median([]int{4, 1, 3, 2}); m != 2.5 {
		t.Errorf("even: %v", m)
	}
	if m := median([]float64{}); m != 0 {
		t.Errorf("none: %v", m)
	}
}

func TestStale(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	running := session.Attempt{State: session.AttemptRunning, Active: now.Add(-StaleAfter + time.Second)}
	if Stale(running, now) {
		t.Error("an attempt alive 4m59s ago is stale")
	}
	running.Active = now.Add(-StaleAfter)
	if !Stale(running, now) {
		t.Error("an attempt silent for 5 minutes is not stale")
	}
	gone := session.Attempt{State: session.AttemptRunning, Active: now, RunnerGone: true}
	if !Stale(gone, now) {
		t.Error("an attempt whose process is dead is not stale")
	}
	ended := session.Attempt{State: session.AttemptFailed, Active: now.Add(-time.Hour)}
	if Stale(ended, now) {
		t.Error("an ended attempt is stale")
	}
}

// experimentOf makes an experiment of model m with the attempts given as
// task:rep:outcome, outcome one of met, unmet, limit, timeout, stale,
// created.
func experimentOf(id int64, repeat int, m string, specs ...string) session.Experiment {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	e := session.Experiment{ID: id, Suite: "/s", Repeat: repeat, Version: "lathe dev", Created: now,
		Models: []session.ExperimentModel{{Name: m, ParameterSize: "8B", Quantization: "Q4_K_M", NumCtx: 8192,
			Load: 2 * time.Second}}}
	seen := map[string]bool{}
	yes, no := true, false
	for i, spec := range specs {
		parts := strings.Split(spec, ":")
		task, outcome := parts[0], parts[2]
		if !seen[task] {
			seen[task] = true
			e.Tasks = append(e.Tasks, session.ExperimentTask{Name: task})
		}
		a := session.Attempt{ID: int64(i + 1), Model: m, Task: task, Try: 1, State: session.AttemptFinished,
			Result: session.AttemptResult{Turns: i + 1, PromptTokens: 1000 * (i + 1), Wall: time.Duration(i+1) * time.Second,
				PrefillRate: 900, DecodeRate: 40, Recoveries: 1}}
		a.Rep = int(parts[1][0] - '0')
		switch outcome {
		case "met":
			a.GoalMet = &yes
		case "unmet":
			a.GoalMet = &no
		case "limit", "timeout":
			a.State, a.FailureReason, a.GoalMet, a.StopReason = session.AttemptFailed, outcome, &no, "max_turns"
		case "stale":
			a.State, a.RunnerGone, a.Result = session.AttemptRunning, true, session.AttemptResult{}
		case "created":
			a.State, a.Result = session.AttemptCreated, session.AttemptResult{}
		}
		e.Attempts = append(e.Attempts, a)
	}
	e.Tasks = append(e.Tasks, session.ExperimentTask{Name: "zz", Skipped: "needs go, which is not installed"})
	return e
}

func TestSummarize(t *testing.T) {
	e := experimentOf(1, 2, "m", "a:1:met", "a:2:met", "b:1:unmet", "b:2:limit", "c:1:stale", "c:2:created")
	s := Summarize(e, time.Now())[0]
	if s.Ended != 4 || s.Met != 2 || s.Rate != 0.5 || s.Stale != 1 || s.Pending != 1 || s.Failures["limit"] != 1 ||
		s.MedianTurns != 2.5 || s.MedianTokens != 2500 || s.MedianWall != 2500*time.Millisecond || s.Recoveries != 4 {
		t.Errorf("summary %+v", s)
	}
	if low, high := Wilson(2, 4); s.Low != low || s.High != high {
		t.Errorf("interval %v–%v", s.Low, s.High)
	}
	status := map[string]string{}
	for _, ts := range s.Tasks {
		status[ts.Task] = ts.Status
	}
	if status["a"] != "2/2 met" || status["b"] != "0/2 met" || status["c"] != "0/0 met, 1 stale, 1 not run" {
		t.Errorf("statuses %q", status)
	}
	var out bytes.Buffer
	Show(&out, e, time.Now())
	for _, want := range []string{
		"experiment 1 · /s · repeat 2\nlathe dev\n",
		"not finished, 1 not run, 1 stale, lathe eval resume 1 runs them",
		"skipped zz: needs go, which is not installed",
		"m (8B, Q4_K_M, num_ctx 8,192, loaded in 2s)",
		"  goal met    2 of 4 (50%, 95% interval 15%–85%)",
		"  median      3 turns · 2,500 tokens · 2.5s · prefill 900 tok/s · decode 40 tok/s",
		"  failed      1 limit",
		"  a     2/2 met",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("show lacks %q:\n%s", want, out.String())
		}
	}
}

// TestShowOnce: run once, a task's result is in words, and there is no
// interval to give.
func TestShowOnce(t *testing.T) {
	e := experimentOf(2, 1, "m", "a:1:met", "b:1:timeout", "c:1:stale")
	var out bytes.Buffer
	Show(&out, e, time.Now())
	for _, want := range []string{"goal met    1 of 2 (50%)\n", "  b     failed: timeout", "  c     stale"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("show lacks %q:\n%s", want, out.String())
		}
	}
	// The charts below give the model's interval over its tasks; the
	// table gives none for one run of each.
	if table, _, _ := strings.Cut(out.String(), chartLegend); strings.Contains(table, "interval") {
		t.Errorf("an interval for one run each:\n%s", out.String())
	}
}

func TestShowJSONAndCSV(t *testing.T) {
	e := experimentOf(3, 1, "m", "a:1:met", "b:1:stale")
	var js bytes.Buffer
	if err := ShowJSON(&js, e, time.Now()); err != nil {
		t.Fatal(err)
	}
	var decoded struct {
		Skipped  []skippedJSON  `json:"skipped"`
		Models   []ModelSummary `json:"models"`
		Attempts []attemptJSON  `json:"attempts"`
	}
	if err := json.Unmarshal(js.Bytes(), &decoded); err != nil {
		t.Fatal(err)
	}
	if len(decoded.Attempts) != 2 || decoded.Attempts[1].State != "stale" || !decoded.Attempts[0].Latest ||
		decoded.Models[0].Met != 1 || len(decoded.Skipped) != 1 {
		t.Errorf("json %s", js.String())
	}
	var c bytes.Buffer
	if err := ShowCSV(&c, e, time.Now()); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&c).ReadAll()
	if err != nil || len(rows) != 3 || len(rows[1]) != len(csvHeader) || rows[1][7] != "true" || rows[2][6] != "stale" {
		t.Errorf("csv %q, %v", rows, err)
	}
}

func TestCompare(t *testing.T) {
	a := experimentOf(1, 1, "m", "a:1:met", "b:1:unmet", "c:1:met")
	b := experimentOf(2, 1, "m", "a:1:unmet", "b:1:met", "c:1:met", "d:1:met")
	var out bytes.Buffer
	if err := Compare(&out, a, b, time.Now()); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"m: goal met 2/3 (67%) → 3/4 (75%)",
		"  a     goal met      goal not met  worse",
		"  b     goal not met  goal met      better",
		"  d     —             goal met",
		"  (1 task the same)",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("compare lacks %q:\n%s", want, out.String())
		}
	}
	// Two models by other names, one each: compared with each other.
	other := experimentOf(3, 1, "n", "a:1:met")
	out.Reset()
	if err := Compare(&out, a, other, time.Now()); err != nil || !strings.Contains(out.String(), "m → n: goal met") {
		t.Errorf("one model each: %v\n%s", err, out.String())
	}
	two := a
	two.Models = append(two.Models, session.ExperimentModel{Name: "x"})
	if err := Compare(&out, two, other, time.Now()); err == nil {
		t.Error("experiments with no model in common compared")
	}
	// Nothing changed: no table, only the count (F11).
	out.Reset()
	if err := Compare(&out, a, a, time.Now()); err != nil || strings.Contains(out.String(), "before") ||
		!strings.Contains(out.String(), "  (3 tasks the same)") {
		t.Errorf("an experiment with itself: %v\n%s", err, out.String())
	}
}

// TestProgressBar: on a terminal a model's bar is drawn over its line,
// with its count, goal met, elapsed time and ETA; a skipped task's line
// goes above it.
func TestProgressBar(t *testing.T) {
	var out bytes.Buffer
	p := NewProgress(&out, true).(*printer)
	start := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	p.now = func() time.Time { return start.Add(30 * time.Second) }
	yes := true
	tally := Tally{Model: "qwen3:8b", Total: 4, Done: 1, Met: 1, Start: start}
	p.ModelStarted(Tally{Model: "qwen3:8b", Total: 4, Start: start})
	p.AttemptEnded(tally, session.Attempt{Task: "a", Rep: 1}, session.AttemptEnd{State: session.AttemptFinished, GoalMet: &yes})
	p.Warn("slow")
	got := out.String()
	if !strings.Contains(got, "\r\x1b[2Kqwen3:8b         ██████░░░░░░░░░░░░░░░░░░ 1/4 · met 1 · 30s · ETA 1m30s") ||
		!strings.Contains(got, "\r\x1b[2Kwarning: slow\n") {
		t.Errorf("bar %q", got)
	}
	out.Reset()
	p.ModelDone(Tally{Model: "qwen3:8b", Total: 4, Done: 4, Met: 3, Start: start})
	if got := out.String(); !strings.Contains(got, "4/4 · met 3 · 30s\n") || strings.Contains(got, "ETA") {
		t.Errorf("done %q", got)
	}
}
