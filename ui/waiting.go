package ui

import (
	"fmt"
	"time"
)

// silence is how long a reply may stream nothing before the TUI says it
// is waiting.
const silence = time.Second

// waiting is the line that shows the model is being waited for: from the
// request until its first token, and whenever the reply has been silent
// for a while; "" otherwise. The frames that run while a request is out
// move its spinner and its time.
func (m *model) waiting() string {
	r := m.run
	if r == nil || r.stopping || !r.asking || m.dialog != nil {
		return ""
	}
	quiet := m.now().Sub(r.heard)
	if r.streamed && quiet < silence {
		return ""
	}
	spin := m.st.accent.Render(spinnerFrames[spinnerStep(m.frames.count, m.frames.interval)%len(spinnerFrames)])
	what := r.waitFor
	switch {
	case r.streamed:
		what = "writing · silent"
	case what == "":
		what = "waiting for " + m.conn.info.Name
	}
	return indent + spin + " " + m.st.meta.Render(fmt.Sprintf("%s · %s", what, elapsed(quiet)))
}

// elapsed writes d in whole seconds: "3s", "1m05s".
func elapsed(d time.Duration) string {
	s := int(d.Seconds())
	if s < 60 {
		return fmt.Sprintf("%ds", s)
	}
	return fmt.Sprintf("%dm%02ds", s/60, s%60)
}
