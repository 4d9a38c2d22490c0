package session

import "lathe/orchestrator/provider"

// Mend lays saved messages out in seq order from seq from (the saved
// messages start there), filling in what a dead process never wrote: the
// results of calls that were running, and a reply to a prompt left
// unanswered. A call's result is interrupted, the text that tells the
// model the call never finished. It returns the history from seq from on
// and the messages it added, with their seq, to be saved.
func Mend(saved []Message, from int, interrupted string) ([]provider.Message, []Message) {
	bySeq := lookup(saved, from)
	last := from - 1
	for _, m := range saved {
		last = max(last, m.Seq)
	}
	out := make([]provider.Message, 0, len(saved))
	var added []Message
	fill := func(m provider.Message, meta *ToolMeta) {
		added = append(added, Message{Seq: from + len(out), Message: m, Tool: meta})
		out = append(out, m)
	}
	for seq := from; seq <= last; seq++ {
		m, ok := bySeq(seq)
		if !ok {
			// Messages are written in order but for the results of one
			// reply's calls, which are filled in below; a gap elsewhere is
			// damage, and the history stops before it, so that positions
			// in it stay the positions in the store.
			break
		}
		out = append(out, m)
		for _, c := range m.ToolCalls {
			if next, ok := bySeq(seq + 1); ok && next.Role == "tool" {
				out = append(out, next)
				seq++
				continue
			}
			fill(provider.Message{Role: "tool", Content: interrupted, ToolName: c.Name, ToolCallID: c.ID},
				&ToolMeta{Outcome: "interrupted", Summary: "interrupted"})
			seq++
		}
	}
	if len(out) > 0 && out[len(out)-1].Role == "user" {
		fill(provider.Message{Role: "assistant"}, nil)
		added[len(added)-1].Cut = true // its process died before it came
	}
	return out, added
}

// lookup finds a saved message by its seq: by its index when every seq
// from from on is there in order (as a session is saved, but for a dead
// process's last calls), by a map otherwise.
func lookup(saved []Message, from int) func(seq int) (provider.Message, bool) {
	inOrder := true
	for i, m := range saved {
		if m.Seq != from+i {
			inOrder = false
			break
		}
	}
	if inOrder {
		return func(seq int) (provider.Message, bool) {
			if seq < from || seq-from >= len(saved) {
				return provider.Message{}, false
			}
			return saved[seq-from].Message, true
		}
	}
	bySeq := make(map[int]provider.Message, len(saved))
	for _, m := range saved {
		bySeq[m.Seq] = m.Message
	}
	return func(seq int) (provider.Message, bool) {
		m, ok := bySeq[seq]
		return m, ok
	}
}
