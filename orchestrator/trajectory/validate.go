package trajectory

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
)

// The checks below are those of Harbor's pydantic models of ATIF v1.6
// (harbor/models/trajectories: trajectory.py, step.py, agent.py,
// tool_call.py, observation.py, observation_result.py,
// subagent_trajectory_ref.py, content.py, metrics.py, final_metrics.py),
// restated: every object forbids keys it does not define; required fields
// are present and not null; step ids run 1, 2, 3...; fields only an
// agent's step may hold are absent from the others; an observation's
// source_call_id names a call of its own step; a timestamp is ISO 8601.
// Integers must be JSON integers (pydantic's lax mode would also take
// 3.0 or "3": lathe never writes those).

// versions are the schema_version values v1.6's model accepts.
var versions = []string{"ATIF-v1.0", "ATIF-v1.1", "ATIF-v1.2", "ATIF-v1.3", "ATIF-v1.4", "ATIF-v1.5", "ATIF-v1.6"}

// Validate checks an ATIF document; it returns every problem found, each
// naming where (steps[2].tool_calls[0].arguments), or nil.
func Validate(data []byte) []error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return []error{fmt.Errorf("not JSON: %w", err)}
	}
	v := &validator{}
	v.object("", doc, fields{
		"schema_version":           {req: true, check: v.enum(versions)},
		"session_id":               {req: true, check: v.str},
		"agent":                    {req: true, check: v.agent},
		"steps":                    {req: true, check: v.steps},
		"notes":                    {check: v.str},
		"final_metrics":            {check: v.finalMetrics},
		"continued_trajectory_ref": {check: v.str},
		"extra":                    {check: v.dict},
	})
	return v.errs
}

type validator struct{ errs []error }

func (v *validator) fail(at, format string, args ...any) {
	if at == "" {
		at = "(root)"
	}
	v.errs = append(v.errs, fmt.Errorf("%s: %s", at, fmt.Sprintf(format, args...)))
}

// field is one key of an object: whether it is required, and its check
// (nil accepts anything). A null value counts as absent.
type field struct {
	req   bool
	check func(at string, x any)
}

type fields map[string]field

// object checks that x is an object with those fields and no others; it
// returns it (nil when it is not one).
func (v *validator) object(at string, x any, fs fields) map[string]any {
	m, ok := x.(map[string]any)
	if !ok {
		v.fail(at, "want an object, have %s", kind(x))
		return nil
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if _, ok := fs[k]; !ok {
			v.fail(join(at, k), "unknown field (extra fields are forbidden)")
		}
	}
	names := make([]string, 0, len(fs))
	for k := range fs {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names {
		f := fs[k]
		val, present := m[k]
		switch {
		case !present || val == nil:
			if f.req {
				v.fail(join(at, k), "required")
			}
		case f.check != nil:
			f.check(join(at, k), val)
		}
	}
	return m
}

func join(at, k string) string {
	if at == "" {
		return k
	}
	return at + "." + k
}

func kind(x any) string {
	switch x.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case bool:
		return "a boolean"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", x)
}

func (v *validator) str(at string, x any) {
	if _, ok := x.(string); !ok {
		v.fail(at, "want a string, have %s", kind(x))
	}
}

func (v *validator) boolean(at string, x any) {
	if _, ok := x.(bool); !ok {
		v.fail(at, "want a boolean, have %s", kind(x))
	}
}

func (v *validator) dict(at string, x any) {
	if _, ok := x.(map[string]any); !ok {
		v.fail(at, "want an object, have %s", kind(x))
	}
}

func (v *validator) integer(at string, x any) {
	n, ok := x.(json.Number)
	if !ok {
		v.fail(at, "want an integer, have %s", kind(x))
		return
	}
	if _, err := n.Int64(); err != nil {
		v.fail(at, "want an integer, have %s", n)
	}
}

func (v *validator) nonNegative(at string, x any) {
	v.integer(at, x)
	if n, ok := x.(json.Number); ok {
		if i, err := n.Int64(); err == nil && i < 0 {
			v.fail(at, "must be 0 or more, is %d", i)
		}
	}
}

func (v *validator) number(at string, x any) {
	if _, ok := x.(json.Number); !ok {
		v.fail(at, "want a number, have %s", kind(x))
	}
}

func (v *validator) enum(allowed []string) func(string, any) {
	return func(at string, x any) {
		s, ok := x.(string)
		if !ok || !slices.Contains(allowed, s) {
			v.fail(at, "want one of %s, have %v", strings.Join(allowed, ", "), x)
		}
	}
}

// list checks that x is an array, each element with each.
func (v *validator) list(each func(string, any)) func(string, any) {
	return func(at string, x any) {
		a, ok := x.([]any)
		if !ok {
			v.fail(at, "want an array, have %s", kind(x))
			return
		}
		for i, e := range a {
			each(fmt.Sprintf("%s[%d]", at, i), e)
		}
	}
}

func (v *validator) agent(at string, x any) {
	v.object(at, x, fields{
		"name":             {req: true, check: v.str},
		"version":          {req: true, check: v.str},
		"model_name":       {check: v.str},
		"tool_definitions": {check: v.list(v.dict)},
		"extra":            {check: v.dict},
	})
}

func (v *validator) finalMetrics(at string, x any) {
	v.object(at, x, fields{
		"total_prompt_tokens":     {check: v.integer},
		"total_completion_tokens": {check: v.integer},
		"total_cached_tokens":     {check: v.integer},
		"total_cost_usd":          {check: v.number},
		"total_steps":             {check: v.nonNegative},
		"extra":                   {check: v.dict},
	})
}

func (v *validator) metrics(at string, x any) {
	v.object(at, x, fields{
		"prompt_tokens":        {check: v.integer},
		"completion_tokens":    {check: v.integer},
		"cached_tokens":        {check: v.integer},
		"cost_usd":             {check: v.number},
		"prompt_token_ids":     {check: v.list(v.integer)},
		"completion_token_ids": {check: v.list(v.integer)},
		"logprobs":             {check: v.list(v.number)},
		"extra":                {check: v.dict},
	})
}

// steps checks the steps: at least one, numbered from 1.
func (v *validator) steps(at string, x any) {
	a, ok := x.([]any)
	if !ok {
		v.fail(at, "want an array, have %s", kind(x))
		return
	}
	if len(a) == 0 {
		v.fail(at, "needs at least one step")
	}
	for i, e := range a {
		sat := fmt.Sprintf("%s[%d]", at, i)
		m := v.step(sat, e)
		if m == nil {
			continue
		}
		if n, ok := m["step_id"].(json.Number); ok && n.String() != fmt.Sprint(i+1) {
			v.fail(sat+".step_id", "want %d (sequential from 1), have %s", i+1, n)
		}
	}
}

// agentOnly are the fields only an agent's step may hold.
var agentOnly = []string{"model_name", "reasoning_effort", "reasoning_content", "tool_calls", "metrics"}

func (v *validator) step(at string, x any) map[string]any {
	m := v.object(at, x, fields{
		"step_id":           {req: true, check: v.positive},
		"timestamp":         {check: v.timestamp},
		"source":            {req: true, check: v.enum([]string{SourceSystem, SourceUser, SourceAgent})},
		"model_name":        {check: v.str},
		"reasoning_effort":  {check: v.strOrNumber},
		"message":           {req: true, check: v.content},
		"reasoning_content": {check: v.str},
		"tool_calls":        {check: v.list(v.toolCall)},
		"observation":       {check: v.observation},
		"metrics":           {check: v.metrics},
		"is_copied_context": {check: v.boolean},
		"extra":             {check: v.dict},
	})
	if m == nil {
		return nil
	}
	if src, _ := m["source"].(string); src != SourceAgent {
		for _, f := range agentOnly {
			if m[f] != nil {
				v.fail(join(at, f), "only a step whose source is agent may have it (source is %v)", m["source"])
			}
		}
	}
	v.callReferences(at, m)
	return m
}

// callReferences checks that each result of the step's observation that
// names a call names one of the step's own.
func (v *validator) callReferences(at string, step map[string]any) {
	ids := map[string]bool{}
	calls, _ := step["tool_calls"].([]any)
	for _, c := range calls {
		if cm, ok := c.(map[string]any); ok {
			if id, ok := cm["tool_call_id"].(string); ok {
				ids[id] = true
			}
		}
	}
	obs, _ := step["observation"].(map[string]any)
	results, _ := obs["results"].([]any)
	for i, r := range results {
		rm, _ := r.(map[string]any)
		id, ok := rm["source_call_id"].(string)
		if ok && !ids[id] {
			v.fail(fmt.Sprintf("%s.observation.results[%d].source_call_id", at, i),
				"%q is not the tool_call_id of a call of this step", id)
		}
	}
}

func (v *validator) positive(at string, x any) {
	v.integer(at, x)
	if n, ok := x.(json.Number); ok {
		if i, err := n.Int64(); err == nil && i < 1 {
			v.fail(at, "must be 1 or more, is %d", i)
		}
	}
}

func (v *validator) strOrNumber(at string, x any) {
	switch x.(type) {
	case string, json.Number:
	default:
		v.fail(at, "want a string or a number, have %s", kind(x))
	}
}

// timestamp checks an ISO 8601 date and time, as Python's
// datetime.fromisoformat reads it ("Z" taken for +00:00).
func (v *validator) timestamp(at string, x any) {
	s, ok := x.(string)
	if !ok {
		v.fail(at, "want a string, have %s", kind(x))
		return
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02"} {
		if _, err := time.Parse(layout, s); err == nil {
			return
		}
	}
	v.fail(at, "%q is not an ISO 8601 timestamp", s)
}

// content checks a message or a result's content: a string, or an array
// of content parts.
func (v *validator) content(at string, x any) {
	switch x.(type) {
	case string:
	case []any:
		v.list(v.contentPart)(at, x)
	default:
		v.fail(at, "want a string or an array of content parts, have %s", kind(x))
	}
}

func (v *validator) contentPart(at string, x any) {
	m := v.object(at, x, fields{
		"type":   {req: true, check: v.enum([]string{"text", "image"})},
		"text":   {check: v.str},
		"source": {check: v.imageSource},
	})
	if m == nil {
		return
	}
	switch m["type"] {
	case "text":
		if m["text"] == nil {
			v.fail(join(at, "text"), "required when type is text")
		}
		if m["source"] != nil {
			v.fail(join(at, "source"), "not allowed when type is text")
		}
	case "image":
		if m["source"] == nil {
			v.fail(join(at, "source"), "required when type is image")
		}
		if m["text"] != nil {
			v.fail(join(at, "text"), "not allowed when type is image")
		}
	}
}

func (v *validator) imageSource(at string, x any) {
	v.object(at, x, fields{
		"media_type": {req: true, check: v.enum([]string{"image/jpeg", "image/png", "image/gif", "image/webp"})},
		"path":       {req: true, check: v.str},
	})
}

func (v *validator) toolCall(at string, x any) {
	v.object(at, x, fields{
		"tool_call_id":  {req: true, check: v.str},
		"function_name": {req: true, check: v.str},
		"arguments":     {req: true, check: v.dict},
	})
}

func (v *validator) observation(at string, x any) {
	v.object(at, x, fields{"results": {req: true, check: v.list(v.observationResult)}})
}

func (v *validator) observationResult(at string, x any) {
	v.object(at, x, fields{
		"source_call_id":          {check: v.str},
		"content":                 {check: v.content},
		"subagent_trajectory_ref": {check: v.list(v.subagentRef)},
	})
}

func (v *validator) subagentRef(at string, x any) {
	v.object(at, x, fields{
		"session_id":      {req: true, check: v.str},
		"trajectory_path": {check: v.str},
		"extra":           {check: v.dict},
	})
}
