package eval

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"lathe/orchestrator/session"
)

// A Harbor job directory (harbor run … -o jobs) holds the job's
// result.json and config.json, and a directory per trial: its
// result.json (models/trial/result.py: task_name, agent_info,
// agent_result's token counts, verifier_result's rewards,
// exception_info, the phases' times), verifier/reward.txt or reward.json,
// and agent/trajectory.json when the agent wrote ATIF.

// harborTrial is the part of a trial's result.json lathe reads.
type harborTrial struct {
	TaskName     string `json:"task_name"`
	TrialName    string `json:"trial_name"`
	TaskChecksum string `json:"task_checksum"`
	Source       string `json:"source"`
	Config       struct {
		Agent struct {
			ModelName string `json:"model_name"`
		} `json:"agent"`
		Environment struct {
			Type string `json:"type"`
		} `json:"environment"`
	} `json:"config"`
	AgentInfo struct {
		Name      string `json:"name"`
		Version   string `json:"version"`
		ModelInfo *struct {
			Name     string `json:"name"`
			Provider string `json:"provider"`
		} `json:"model_info"`
	} `json:"agent_info"`
	AgentResult *struct {
		InputTokens  *int `json:"n_input_tokens"`
		CacheTokens  *int `json:"n_cache_tokens"`
		OutputTokens *int `json:"n_output_tokens"`
	} `json:"agent_result"`
	VerifierResult *struct {
		Rewards map[string]float64 `json:"rewards"`
	} `json:"verifier_result"`
	ExceptionInfo *struct {
		Type    string `json:"exception_type"`
		Message string `json:"exception_message"`
	} `json:"exception_info"`
	StartedAt      string      `json:"started_at"`
	FinishedAt     string      `json:"finished_at"`
	AgentExecution *harborSpan `json:"agent_execution"`
}

type harborSpan struct {
	StartedAt  string `json:"started_at"`
	FinishedAt string `json:"finished_at"`
}

// importedTrial is a trial as lathe records it.
type importedTrial struct {
	model, task string
	started     time.Time
	end         session.AttemptEnd
}

// ImportHarbor records the Harbor job in dir as an experiment of store, a
// model per model the trials name and an attempt per trial (a trial that
// ended in an error is an attempt that failed, its error the failure, its
// goal not met); it returns the experiment's id.
func ImportHarbor(ctx context.Context, store Store, dir string, now time.Time) (int64, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return 0, err
	}
	trials, env, version, err := readHarborJob(abs)
	if err != nil {
		return 0, err
	}
	e := session.Experiment{Suite: "harbor:" + abs, Jobs: jobConcurrency(abs), Sandbox: env, Version: version,
		Created: jobStart(trials, now)}
	reps := map[session.Slot]int{}
	var slots []session.Slot
	for i := range trials {
		tr := &trials[i]
		if !slices.ContainsFunc(e.Models, func(m session.ExperimentModel) bool { return m.Name == tr.model }) {
			e.Models = append(e.Models, session.ExperimentModel{Name: tr.model})
		}
		if !slices.ContainsFunc(e.Tasks, func(t session.ExperimentTask) bool { return t.Name == tr.task }) {
			spec, _ := json.Marshal(map[string]string{"format": FormatHarbor, "job": abs})
			e.Tasks = append(e.Tasks, session.ExperimentTask{Name: tr.task, Spec: string(spec)})
		}
		key := session.Slot{Model: tr.model, Task: tr.task}
		reps[key]++
		slots = append(slots, session.Slot{Model: tr.model, Task: tr.task, Rep: reps[key]})
		e.Repeat = max(e.Repeat, reps[key])
	}
	id, err := store.CreateExperiment(ctx, e, slots)
	if err != nil {
		return 0, err
	}
	created, err := store.Experiment(ctx, id)
	if err != nil {
		return id, err
	}
	ids := map[session.Slot]int64{}
	for _, a := range created.Attempts {
		ids[session.Slot{Model: a.Model, Task: a.Task, Rep: a.Rep}] = a.ID
	}
	for i, tr := range trials {
		a := ids[slots[i]]
		if err := store.StartAttempt(ctx, a, tr.started); err != nil {
			return id, err
		}
		if err := store.EndAttempt(ctx, a, tr.end); err != nil {
			return id, err
		}
	}
	return id, nil
}

// jobStart is when the job began: its first trial's start (trials are in
// the order they started), or now when no trial says.
func jobStart(trials []importedTrial, now time.Time) time.Time {
	for _, tr := range trials {
		if !tr.started.IsZero() {
			return tr.started
		}
	}
	return now
}

// readHarborJob reads the trials of the job in dir, in the order they
// started; with the environment they ran in and the agent's version.
func readHarborJob(dir string) (trials []importedTrial, env, version string, err error) {
	if !isFile(filepath.Join(dir, "result.json")) {
		return nil, "", "", fmt.Errorf("%s: no result.json: not a Harbor job directory (harbor run writes jobs/<job>/)", dir)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, "", "", err
	}
	for _, e := range entries {
		trialDir := filepath.Join(dir, e.Name())
		if !e.IsDir() || !isFile(filepath.Join(trialDir, "result.json")) {
			continue
		}
		b, err := os.ReadFile(filepath.Join(trialDir, "result.json"))
		if err != nil {
			return nil, "", "", err
		}
		var tr harborTrial
		if err := json.Unmarshal(b, &tr); err != nil || tr.TaskName == "" {
			return nil, "", "", fmt.Errorf("%s: not a Harbor trial's result: %v", filepath.Join(trialDir, "result.json"), err)
		}
		trials = append(trials, importTrial(trialDir, tr))
		env = tr.Config.Environment.Type
		version = strings.TrimSpace(tr.AgentInfo.Name + " " + tr.AgentInfo.Version + " (run by Harbor)")
	}
	if len(trials) == 0 {
		return nil, "", "", fmt.Errorf("%s: the job has no trial with a result.json yet", dir)
	}
	sort.SliceStable(trials, func(i, j int) bool { return trials[i].started.Before(trials[j].started) })
	return trials, env, version, nil
}

// importTrial is the trial in dir, whose result.json is tr, as an attempt.
func importTrial(dir string, tr harborTrial) importedTrial {
	it := importedTrial{model: trialModel(tr), task: tr.TaskName, started: parseTime(tr.StartedAt)}
	end := session.AttemptEnd{State: session.AttemptFinished, Completed: parseTime(tr.FinishedAt)}
	if it.started.IsZero() {
		it.started = end.Completed
	}
	r := &end.Result
	if ar := tr.AgentResult; ar != nil {
		r.PromptTokens, r.CompletionTokens = orZero(ar.InputTokens), orZero(ar.OutputTokens)
	}
	if x := tr.AgentExecution; x != nil {
		if s, f := parseTime(x.StartedAt), parseTime(x.FinishedAt); !s.IsZero() && f.After(s) {
			r.Wall = f.Sub(s)
		}
	}
	if v := tr.VerifierResult; v != nil {
		if reward, ok := v.Rewards["reward"]; ok {
			end.Reward = &reward
		}
	}
	if end.Reward == nil {
		end.Reward, _ = readRewardIn(filepath.Join(dir, "verifier"))
	}
	met := end.Reward != nil && *end.Reward >= 1
	end.GoalMet = &met
	if ex := tr.ExceptionInfo; ex != nil {
		end.State, end.FailureReason = session.AttemptFailed, session.FailError
		if strings.Contains(ex.Type, "Timeout") {
			end.FailureReason = session.FailTimeout
		}
		end.Failure = strings.TrimSpace(ex.Type + ": " + ex.Message)
	}
	if path := filepath.Join(dir, "agent", "trajectory.json"); isFile(path) {
		end.Trajectory = path
		fromTrajectory(path, &end)
	}
	it.end = end
	return it
}

func orZero(n *int) int {
	if n == nil {
		return 0
	}
	return *n
}

// trialModel is the model a trial ran: its agent's, without the
// provider Harbor puts before it.
func trialModel(tr harborTrial) string {
	if mi := tr.AgentInfo.ModelInfo; mi != nil && mi.Name != "" {
		return mi.Name
	}
	name := tr.Config.Agent.ModelName
	if _, after, ok := strings.Cut(name, "/"); ok {
		name = after
	}
	if name == "" {
		name = tr.AgentInfo.Name
	}
	return name
}

// parseTime reads Harbor's times: ISO 8601, with or without a zone (a
// time without one is taken as UTC).
func parseTime(s string) time.Time {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t
		}
	}
	return time.Time{}
}

// loose is an ATIF trajectory as read from elsewhere: only what lathe
// takes from it, whatever else it holds.
type loose struct {
	SessionID string `json:"session_id"`
	Steps     []struct {
		Source    string            `json:"source"`
		ToolCalls []json.RawMessage `json:"tool_calls"`
		Metrics   *struct {
			PromptTokens     int            `json:"prompt_tokens"`
			CompletionTokens int            `json:"completion_tokens"`
			Extra            map[string]any `json:"extra"`
		} `json:"metrics"`
	} `json:"steps"`
	FinalMetrics *struct {
		TotalPromptTokens     *int           `json:"total_prompt_tokens"`
		TotalCompletionTokens *int           `json:"total_completion_tokens"`
		Extra                 map[string]any `json:"extra"`
	} `json:"final_metrics"`
	Extra map[string]any `json:"extra"`
}

// fromTrajectory fills in from the ATIF trajectory at path what the
// trial's result does not say: turns, calls, the session, and where lathe
// wrote them, its speeds, times and recoveries.
func fromTrajectory(path string, end *session.AttemptEnd) {
	b, err := os.ReadFile(path)
	if err != nil {
		return
	}
	var t loose
	if json.Unmarshal(b, &t) != nil {
		return
	}
	end.SessionID = t.SessionID
	r := &end.Result
	var prefill, decode []float64
	prompt, completion := 0, 0
	for _, s := range t.Steps {
		if s.Source != "agent" {
			continue
		}
		r.Turns++
		r.ToolCalls += len(s.ToolCalls)
		if m := s.Metrics; m != nil {
			prompt, completion = prompt+m.PromptTokens, completion+m.CompletionTokens
			if v := number(m.Extra, "prefill_tps"); v > 0 {
				prefill = append(prefill, v)
			}
			if v := number(m.Extra, "decode_tps"); v > 0 {
				decode = append(decode, v)
			}
		}
	}
	if r.PromptTokens == 0 && r.CompletionTokens == 0 {
		r.PromptTokens, r.CompletionTokens = prompt, completion
	}
	r.PrefillRate, r.DecodeRate = median(prefill), median(decode)
	if fm := t.FinalMetrics; fm != nil {
		r.Load = ms(fm.Extra, "load_ms")
		r.Prefill, r.Decode = ms(fm.Extra, "prefill_ms"), ms(fm.Extra, "decode_ms")
		r.Recoveries = int(number(fm.Extra, "recoveries"))
		if v := number(fm.Extra, "prefill_tps"); v > 0 {
			r.PrefillRate = v
		}
		if v := number(fm.Extra, "decode_tps"); v > 0 {
			r.DecodeRate = v
		}
	}
	if stop, ok := t.Extra["stop_reason"].(string); ok {
		end.StopReason = stop
	}
}

func number(m map[string]any, key string) float64 {
	v, _ := m[key].(float64)
	return v
}

func ms(m map[string]any, key string) time.Duration {
	return time.Duration(number(m, key) * float64(time.Millisecond))
}

// jobConcurrency is how many trials the job in dir ran at once, as its
// config.json says; 1 when it does not.
func jobConcurrency(dir string) int {
	b, err := os.ReadFile(filepath.Join(dir, "config.json"))
	if err != nil {
		return 1
	}
	var c struct {
		NConcurrent  int `json:"n_concurrent_trials"`
		Orchestrator struct {
			NConcurrent int `json:"n_concurrent_trials"`
		} `json:"orchestrator"`
	}
	if json.Unmarshal(b, &c) != nil {
		return 1
	}
	return max(c.NConcurrent, c.Orchestrator.NConcurrent, 1)
}
