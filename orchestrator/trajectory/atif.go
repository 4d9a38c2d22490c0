// Package trajectory is a run as an ATIF trajectory (the Agent Trajectory
// Interchange Format of Harbor, version 1.6): the document's types, a
// Recorder that builds one from the orchestrator's events as the printers
// consume them, the checks a document must pass, and the reading of one
// written elsewhere.
//
// It lives under orchestrator, not ui, because the experiment runner reads
// and checks trajectories too (lathe eval import), and nothing under
// orchestrator may import ui.
package trajectory

import (
	"bytes"
	"encoding/json"
	"fmt"
	"lathe/config/safefile"
)

// Version is the ATIF version lathe writes: the newest whose every model
// (Trajectory, Step, ToolCall, Observation, ObservationResult, Metrics,
// FinalMetrics, Agent, ContentPart) was read for these checks. A v1.6
// document with its session_id is a valid v1.7 one too: v1.7 made
// session_id optional and added fields, removing none.
const Version = "ATIF-v1.6"

// Trajectory is an ATIF document.
type Trajectory struct {
	SchemaVersion string         `json:"schema_version"`
	SessionID     string         `json:"session_id"`
	Agent         Agent          `json:"agent"`
	Steps         []Step         `json:"steps"`
	Notes         string         `json:"notes,omitempty"`
	FinalMetrics  *FinalMetrics  `json:"final_metrics,omitempty"`
	Extra         map[string]any `json:"extra,omitempty"`
}

// Agent is the agent system that ran.
type Agent struct {
	Name      string         `json:"name"`
	Version   string         `json:"version"`
	ModelName string         `json:"model_name,omitempty"`
	Extra     map[string]any `json:"extra,omitempty"`
}

// Step is one step: the user's prompt, a system event, or one model call
// with the calls it made and what they returned.
type Step struct {
	StepID           int            `json:"step_id"`
	Timestamp        string         `json:"timestamp,omitempty"`
	Source           string         `json:"source"` // system, user or agent
	ModelName        string         `json:"model_name,omitempty"`
	Message          string         `json:"message"`
	ReasoningContent string         `json:"reasoning_content,omitempty"`
	ToolCalls        []ToolCall     `json:"tool_calls,omitempty"`
	Observation      *Observation   `json:"observation,omitempty"`
	Metrics          *Metrics       `json:"metrics,omitempty"`
	Extra            map[string]any `json:"extra,omitempty"`
}

// Sources of a step.
const (
	SourceSystem = "system"
	SourceUser   = "user"
	SourceAgent  = "agent"
)

// ToolCall is one call the model made.
type ToolCall struct {
	ToolCallID   string         `json:"tool_call_id"`
	FunctionName string         `json:"function_name"`
	Arguments    map[string]any `json:"arguments"`
}

// Observation is what the step's calls returned.
type Observation struct {
	Results []ObservationResult `json:"results"`
}

// ObservationResult is what one call returned.
type ObservationResult struct {
	SourceCallID string `json:"source_call_id,omitempty"`
	Content      string `json:"content"`
}

// Metrics are a model call's counts; lathe's own timings are in Extra.
type Metrics struct {
	PromptTokens     int            `json:"prompt_tokens"`
	CompletionTokens int            `json:"completion_tokens"`
	CachedTokens     int            `json:"cached_tokens"`
	Extra            map[string]any `json:"extra,omitempty"`
}

// FinalMetrics are the whole run's counts.
type FinalMetrics struct {
	TotalPromptTokens     int            `json:"total_prompt_tokens"`
	TotalCompletionTokens int            `json:"total_completion_tokens"`
	TotalCachedTokens     int            `json:"total_cached_tokens"`
	TotalSteps            int            `json:"total_steps"`
	Extra                 map[string]any `json:"extra,omitempty"`
}

// Marshal is t as written: indented JSON, <, > and & left as they are.
func Marshal(t *Trajectory) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(t); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// WriteFile writes t to path, through a temporary file beside it so that
// a reader never sees half of it.
func WriteFile(path string, t *Trajectory) error {
	b, err := Marshal(t)
	if err != nil {
		return err
	}
	if err := safefile.Replace(path, b); err != nil {
		return fmt.Errorf("write trajectory %s: %w", path, err)
	}
	return nil
}

// Append is a followed by b, one run continuing another (a second try in
// the same session): b's steps numbered on from a's, the final metrics
// summed. Either may be nil.
func Append(a, b *Trajectory) *Trajectory {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	}
	out := *a
	out.Steps = append([]Step(nil), a.Steps...)
	for _, s := range b.Steps {
		s.StepID = len(out.Steps) + 1
		out.Steps = append(out.Steps, s)
	}
	if a.FinalMetrics != nil || b.FinalMetrics != nil {
		fm := FinalMetrics{}
		for _, m := range []*FinalMetrics{a.FinalMetrics, b.FinalMetrics} {
			if m != nil {
				fm.TotalPromptTokens += m.TotalPromptTokens
				fm.TotalCompletionTokens += m.TotalCompletionTokens
				fm.TotalCachedTokens += m.TotalCachedTokens
			}
		}
		fm.TotalSteps = len(out.Steps)
		if b.FinalMetrics != nil {
			fm.Extra = b.FinalMetrics.Extra
		}
		out.FinalMetrics = &fm
	}
	if b.Extra != nil {
		extra := map[string]any{}
		for k, v := range a.Extra {
			extra[k] = v
		}
		extra["continued"] = b.Extra
		out.Extra = extra
	}
	return &out
}
