package orchestrator

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"path"
	"strings"
	"sync"

	"lathe/orchestrator/provider"
	"lathe/orchestrator/textcall"
	"lathe/prompts"
)

// Recoveries counts what lathe repaired in a run, for its summary.
type Recoveries struct {
	TextCalls          int `json:"text_calls"`          // tool calls written as text, run as calls
	ToolNames          int `json:"tool_names"`          // tool names matched loosely ("Read_File")
	ArgumentRepairs    int `json:"argument_repairs"`    // fixes a tool made to its call
	ThinkLeaks         int `json:"think_leaks"`         // replies whose <think> text left the answer
	RepetitionWarnings int `json:"repetition_warnings"` // repeated calls the model was warned about
	EmptyNudges        int `json:"empty_nudges"`        // empty replies answered with a nudge
	AnnouncedNudges    int `json:"announced_nudges"`    // replies that announced a call they did not make, nudged
}

// Total is the number of recoveries of every kind.
func (r Recoveries) Total() int {
	return r.TextCalls + r.ToolNames + r.ArgumentRepairs + r.ThinkLeaks + r.RepetitionWarnings + r.EmptyNudges +
		r.AnnouncedNudges
}

// resolveNames gives calls to a loosely matching name ("functions.Read_File")
// the registered name, so that they run and the history shows the name the
// model should use.
func (r *run) resolveNames(calls []provider.ToolCall) {
	for i, c := range calls {
		if _, known := r.s.every.Lookup(c.Name); known {
			continue
		}
		if name, ok := r.s.resolve(c.Name); ok {
			r.s.opts.Log.Debug().Str("as", c.Name).Str("tool", name).Msg("tool name matched loosely")
			calls[i].Name = name
			r.res.Recoveries.ToolNames++
		}
	}
}

// recoverTextCalls turns tool calls the model wrote as text into calls,
// when the reply has none: the reply is rewritten into proper form, the
// call text leaving its content, and the user is told through an event.
func (r *run) recoverTextCalls(turn int, rep *reply) {
	if len(rep.calls) > 0 || rep.content.Len() == 0 {
		return
	}
	found, rest := textcall.Find(rep.content.String(), r.s.resolve)
	if len(found) == 0 {
		return
	}
	for _, c := range found {
		rep.calls = append(rep.calls, provider.ToolCall{Name: c.Name, Arguments: c.Arguments})
	}
	rep.content.Reset()
	rep.content.WriteString(rest)
	r.res.Recoveries.TextCalls += len(rep.calls)
	r.s.opts.Log.Debug().Int("turn", turn).Int("calls", len(rep.calls)).Msg("recovered tool calls written as text")
	r.emit(ReplyRewritten{Turn: turn, Content: rest})
}

// repetitions notices the model making the same call with the same result
// again and again.
type repetitions struct {
	mu     sync.Mutex
	warnAt int
	stopAt int
	seen   map[string]*repeated
	stop   string // the call that reached stopAt; empty until one does
}

type repeated struct {
	result [sha256.Size]byte
	count  int
}

func newRepetitions(warnAt, stopAt int) *repetitions {
	return &repetitions{warnAt: warnAt, stopAt: stopAt, seen: map[string]*repeated{}}
}

// record counts a call and its result, and returns the note to add to
// the result when the model is repeating itself. A result that differs
// from the last one of the same call starts the count again: polling a
// build is not repeating.
func (p *repetitions) record(name, args, result, subject string) string {
	key := callKey(name, args)
	sum := sha256.Sum256([]byte(result))
	p.mu.Lock()
	defer p.mu.Unlock()
	r := p.seen[key]
	if r == nil || r.result != sum {
		r = &repeated{result: sum}
		p.seen[key] = r
	}
	r.count++
	switch {
	case r.count >= p.stopAt && p.stop == "":
		p.stop = strings.TrimSpace(name + " " + subject)
		fallthrough
	case r.count >= p.warnAt:
		return prompts.Repeated(ordinal(r.count))
	}
	return ""
}

// callKey identifies a call up to trivial differences: runs of whitespace
// in its string arguments, and "./x" against "x" in a path.
func callKey(name, args string) string {
	var m map[string]any
	if json.Unmarshal([]byte(args), &m) != nil {
		return name + " " + strings.Join(strings.Fields(args), " ")
	}
	for k, v := range m {
		s, ok := v.(string)
		if !ok {
			continue
		}
		s = strings.Join(strings.Fields(s), " ")
		if k == "path" {
			s = path.Clean(s)
		}
		m[k] = s
	}
	b, _ := json.Marshal(m) // map keys are sorted: the same arguments give the same key
	return name + " " + string(b)
}

func ordinal(n int) string {
	switch {
	case n%100 >= 11 && n%100 <= 13:
		return fmt.Sprintf("%dth", n)
	case n%10 == 1:
		return fmt.Sprintf("%dst", n)
	case n%10 == 2:
		return fmt.Sprintf("%dnd", n)
	case n%10 == 3:
		return fmt.Sprintf("%drd", n)
	}
	return fmt.Sprintf("%dth", n)
}
