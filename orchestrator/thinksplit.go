package orchestrator

import "strings"

const (
	thinkOpen  = "<think>"
	thinkClose = "</think>"
)

// thinkSplitter moves <think>...</think> text that a model or an older
// server left in a reply's content over to its thinking, as the content
// streams: a tag may be split across chunks, so a possible start of one is
// held back until the next chunk decides.
type thinkSplitter struct {
	inside  bool   // between an opening and a closing tag
	pending string // the end of the last chunk, possibly the start of a tag
	leaked  bool   // a tag was seen in this reply
}

// feed splits a chunk of content into what is content and what is
// thinking.
func (t *thinkSplitter) feed(s string) (content, thinking string) {
	buf := t.pending + s
	t.pending = ""
	var c, th strings.Builder
	for buf != "" {
		tag, out := thinkOpen, &c
		if t.inside {
			tag, out = thinkClose, &th
		}
		if i := strings.Index(buf, tag); i >= 0 {
			out.WriteString(buf[:i])
			buf = buf[i+len(tag):]
			t.inside, t.leaked = !t.inside, true
			continue
		}
		keep := partialSuffix(buf, tag)
		out.WriteString(buf[:len(buf)-keep])
		t.pending = buf[len(buf)-keep:]
		break
	}
	return c.String(), th.String()
}

// flush returns what is held back once the content ends.
func (t *thinkSplitter) flush() (content, thinking string) {
	p := t.pending
	t.pending = ""
	if t.inside {
		return "", p
	}
	return p, ""
}

// partialSuffix is the length of the longest end of s that is a proper
// start of tag.
func partialSuffix(s, tag string) int {
	for n := min(len(tag)-1, len(s)); n > 0; n-- {
		if strings.HasSuffix(s, tag[:n]) {
			return n
		}
	}
	return 0
}
