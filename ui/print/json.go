package print

import (
	"bytes"
	"encoding/json"
	"io"
	"math"

	"lathe/orchestrator"
	"lathe/orchestrator/plan"
)

// resultJSON is the json output, and the last line of stream-json.
type resultJSON struct {
	Type       string `json:"type"`
	Result     string `json:"result"`
	StopReason string `json:"stop_reason"`
	Turns      int    `json:"turns"`
	ToolCalls  int    `json:"tool_calls"`
	// Denied counts the calls the approval rules did not allow (without
	// --yes); the run may still end "done".
	Denied     int       `json:"denied"`
	Usage      usageJSON `json:"usage"`
	DurationMS int64     `json:"duration_ms"`
	Model      string    `json:"model"`
	SessionID  string    `json:"session_id"`
	// Recoveries counts what lathe repaired of the model's mistakes.
	Recoveries orchestrator.Recoveries `json:"recoveries"`
	// Timing is where the run's time went.
	Timing timingJSON `json:"timing"`
	// Mode is the mode the run ended in; Plan the plan proposed (with
	// stop_reason "planned") or being carried out, with its checklist.
	Mode string     `json:"mode"`
	Plan *plan.Plan `json:"plan,omitempty"`
	// Images are the images sent to the model: name, size, dimensions,
	// never their bytes.
	Images []orchestrator.ImageInfo `json:"images,omitempty"`
	// Diagnostics are the problems the run's changes brought into the
	// files they changed, as the language servers found them.
	Diagnostics []string `json:"diagnostics,omitempty"`
	Error       string   `json:"error,omitempty"`
}

// timingJSON is a turn's or a run's timing (see orchestrator.Timing): durations
// in milliseconds, rates in tokens a second.
type timingJSON struct {
	LoadMS        int64   `json:"load_ms"`
	FirstTokenMS  int64   `json:"first_token_ms"`
	PrefillTokens int     `json:"prefill_tokens"`
	PrefillTPS    float64 `json:"prefill_tps"`
	DecodeTPS     float64 `json:"decode_tps"`
	CachedTokens  int     `json:"cached_tokens"`
	CacheMiss     bool    `json:"cache_miss,omitempty"`
	// PrefillMS and DecodeMS are the server's time reading the prompts
	// and writing the replies, over a run (the result only).
	PrefillMS int64 `json:"prefill_ms,omitempty"`
	DecodeMS  int64 `json:"decode_ms,omitempty"`
	Reloaded  bool  `json:"reloaded,omitempty"`
}

func newTimingJSON(t orchestrator.Timing) timingJSON {
	return timingJSON{LoadMS: t.Load.Milliseconds(), FirstTokenMS: t.FirstToken.Milliseconds(),
		PrefillTokens: t.PrefillTokens, PrefillTPS: round1(t.PrefillRate), DecodeTPS: round1(t.DecodeRate),
		CachedTokens: t.CachedTokens, CacheMiss: t.CacheMiss, Reloaded: t.Reloaded}
}

func round1(f float64) float64 { return math.Round(f*10) / 10 }

type usageJSON struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
}

func newResultJSON(res orchestrator.Result, denied int, failure error) resultJSON {
	out := resultJSON{
		Type:       "result",
		Result:     res.Text,
		StopReason: string(res.StopReason),
		Turns:      res.Turns,
		ToolCalls:  res.ToolCalls,
		Denied:     denied,
		Usage:      usageJSON{res.Usage.PromptTokens, res.Usage.CompletionTokens},
		DurationMS: res.Duration.Milliseconds(),
		Model:      res.Model,
		SessionID:  res.SessionID,
		Recoveries: res.Recoveries,
		Timing: newTimingJSON(orchestrator.Timing{Load: res.Timing.Load, FirstToken: res.Timing.FirstToken,
			PrefillTokens: res.Timing.PrefillTokens, PrefillRate: res.Timing.PrefillRate,
			DecodeRate: res.Timing.DecodeRate, CachedTokens: res.Timing.CachedTokens}),
		Mode:   res.Mode,
		Plan:   res.Plan,
		Images: res.Images,
	}
	out.Timing.PrefillMS = res.Timing.PrefillTime().Milliseconds()
	out.Timing.DecodeMS = res.Timing.DecodeTime().Milliseconds()
	if failure != nil {
		out.Error = failure.Error()
	}
	return out
}

// eventEncoder writes stream-json events, one object a line.
type eventEncoder struct{ w io.Writer }

func newEventEncoder(w io.Writer) *eventEncoder { return &eventEncoder{w: w} }

// event writes e, unless it is not part of the stream (thinking never is).
func (enc *eventEncoder) event(e orchestrator.Event) {
	if v, ok := streamEvent(e); ok {
		_ = writeJSONLine(enc.w, v)
	}
}

// writeJSONLine writes v as one line, without escaping <, > and &.
func writeJSONLine(w io.Writer, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(buf.Bytes())
	return err
}
