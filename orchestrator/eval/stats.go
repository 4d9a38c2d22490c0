package eval

import (
	"fmt"
	"math"
	"slices"
	"time"

	"lathe/orchestrator/session"
)

// Wilson is the 95% Wilson score interval of a proportion of k successes
// in n trials: unlike the normal approximation it stays within [0, 1] and
// is honest for small n and for rates near 0 or 1.
func Wilson(k, n int) (low, high float64) {
	if n == 0 {
		return 0, 1
	}
	const z = 1.959963984540054 // the 97.5th percentile of the normal distribution
	p, fn := float64(k)/float64(n), float64(n)
	denom := 1 + z*z/fn
	centre := (p + z*z/(2*fn)) / denom
	half := z * math.Sqrt(p*(1-p)/fn+z*z/(4*fn*fn)) / denom
	return max(0, centre-half), min(1, centre+half)
}

// median is the median of xs (0 for none).
func median[T ~int | ~int64 | ~float64](xs []T) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return float64(s[n/2])
	}
	return (float64(s[n/2-1]) + float64(s[n/2])) / 2
}

// ModelSummary is how a model did in an experiment, over the last try of
// each of its attempts.
type ModelSummary struct {
	Model session.ExperimentModel `json:"model"`
	// Ended counts the attempts that ended (finished or failed); Met
	// those whose check passed.
	Ended int     `json:"ended"`
	Met   int     `json:"goal_met"`
	Rate  float64 `json:"success_rate"`
	// Low and High bound the rate's 95% (Wilson) interval.
	Low  float64 `json:"low"`
	High float64 `json:"high"`
	// Not run yet, running, and running with their process dead.
	Pending int `json:"pending"`
	Running int `json:"running"`
	Stale   int `json:"stale"`
	// Failures counts the failed attempts by reason.
	Failures     map[string]int `json:"failures"`
	MedianTurns  float64        `json:"median_turns"`
	MedianTokens float64        `json:"median_tokens"`
	MedianWall   time.Duration  `json:"median_wall_ns"`
	PrefillRate  float64        `json:"median_prefill_tps"`
	DecodeRate   float64        `json:"median_decode_tps"`
	Recoveries   int            `json:"recoveries"`
	Tasks        []TaskSummary  `json:"tasks"`
}

// TaskSummary is how a model did on one task, over its repetitions.
type TaskSummary struct {
	Task    string        `json:"task"`
	Ended   int           `json:"ended"`
	Met     int           `json:"goal_met"`
	Pending int           `json:"pending"`
	Running int           `json:"running"`
	Stale   int           `json:"stale"`
	Status  string        `json:"status"` // in words: "goal met", "2/3 met", "failed: timeout", "stale"...
	Turns   float64       `json:"median_turns"`
	Tokens  float64       `json:"median_tokens"`
	Wall    time.Duration `json:"median_wall_ns"`
}

// Summarize sums up experiment e model by model, at now (for staleness).
func Summarize(e session.Experiment, now time.Time) []ModelSummary {
	latest := Latest(e.Attempts)
	tasks := runnableTasks(e)
	var out []ModelSummary
	for _, m := range e.Models {
		s := ModelSummary{Model: m, Failures: map[string]int{}}
		var turns, tokens []int
		var walls []time.Duration
		var prefill, decode []float64
		for _, task := range tasks {
			ts := TaskSummary{Task: task}
			var tTurns, tTokens []int
			var tWalls []time.Duration
			var last session.Attempt
			for rep := 1; rep <= e.Repeat; rep++ {
				a, ok := latest[session.Slot{Model: m.Name, Task: task, Rep: rep}]
				switch {
				case !ok || a.State == session.AttemptCreated:
					ts.Pending++
					continue
				case Stale(a, now):
					ts.Stale++
					continue
				case a.State == session.AttemptRunning:
					ts.Running++
					continue
				}
				last = a
				ts.Ended++
				if a.GoalMet != nil && *a.GoalMet {
					ts.Met++
				}
				if a.State == session.AttemptFailed {
					s.Failures[a.FailureReason]++
				}
				r := a.Result
				tTurns, tTokens, tWalls = append(tTurns, r.Turns), append(tTokens, r.PromptTokens+r.CompletionTokens),
					append(tWalls, r.Wall)
				if r.PrefillRate > 0 {
					prefill = append(prefill, r.PrefillRate)
				}
				if r.DecodeRate > 0 {
					decode = append(decode, r.DecodeRate)
				}
				s.Recoveries += r.Recoveries
			}
			ts.Turns, ts.Tokens, ts.Wall = median(tTurns), median(tTokens), time.Duration(median(tWalls))
			ts.Status = taskStatus(ts, e.Repeat, last)
			turns, tokens, walls = append(turns, tTurns...), append(tokens, tTokens...), append(walls, tWalls...)
			s.Ended, s.Met, s.Pending, s.Running, s.Stale = s.Ended+ts.Ended, s.Met+ts.Met, s.Pending+ts.Pending,
				s.Running+ts.Running, s.Stale+ts.Stale
			s.Tasks = append(s.Tasks, ts)
		}
		if s.Ended > 0 {
			s.Rate = float64(s.Met) / float64(s.Ended)
		}
		s.Low, s.High = Wilson(s.Met, s.Ended)
		s.MedianTurns, s.MedianTokens, s.MedianWall = median(turns), median(tokens), time.Duration(median(walls))
		s.PrefillRate, s.DecodeRate = median(prefill), median(decode)
		out = append(out, s)
	}
	return out
}

// taskStatus says in words how a task went; last is its last attempt
// that ended, when it was run once.
func taskStatus(ts TaskSummary, repeat int, last session.Attempt) string {
	if repeat == 1 {
		switch {
		case ts.Stale > 0:
			return "stale"
		case ts.Running > 0:
			return "running"
		case ts.Pending > 0:
			return "not run"
		}
		return verdict(last.State, last.GoalMet, last.FailureReason, last.StopReason)
	}
	status := fmt.Sprintf("%d/%d met", ts.Met, ts.Ended)
	for _, x := range []struct {
		n    int
		word string
	}{{ts.Stale, "stale"}, {ts.Running, "running"}, {ts.Pending, "not run"}} {
		if x.n > 0 {
			status += fmt.Sprintf(", %d %s", x.n, x.word)
		}
	}
	return status
}
