package ui

import (
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/progress"
	tea "charm.land/bubbletea/v2"

	"lathe/orchestrator/provider"
	"lathe/prompts/human"
)

// pullProgressMsg and pullDoneMsg come through the bridge while a pull runs.
type (
	pullProgressMsg provider.PullProgress
	pullDoneMsg     struct{ err error }
)

// pullBar follows a model download on the pull screen: its status, a
// progress bar, the bytes and the speed.
type pullBar struct {
	name     string
	now      func() time.Time
	status   string
	layers   map[string][2]int64 // digest → total, completed
	lastDone int64
	lastAt   time.Time
	speed    float64 // bytes per second, smoothed
	bar      progress.Model
}

func newPullBar(name string, now func() time.Time) *pullBar {
	return &pullBar{name: name, now: now, layers: map[string][2]int64{}, lastAt: now(),
		bar: progress.New(progress.WithDefaultBlend(), progress.WithoutPercentage())}
}

// Update records a progress line of the pull.
func (p *pullBar) Update(msg tea.Msg) (*pullBar, tea.Cmd) {
	pp, ok := msg.(pullProgressMsg)
	if !ok {
		return p, nil
	}
	p.status = pp.Status
	if pp.Digest != "" && pp.Total > 0 {
		p.layers[pp.Digest] = [2]int64{pp.Total, pp.Completed}
	}
	now := p.now()
	if dt := now.Sub(p.lastAt); dt >= 500*time.Millisecond {
		_, done := p.bytes()
		rate := float64(done-p.lastDone) / dt.Seconds()
		if p.speed == 0 {
			p.speed = rate
		}
		p.speed = 0.7*p.speed + 0.3*rate
		p.lastDone, p.lastAt = done, now
	}
	return p, nil
}

func (p *pullBar) bytes() (total, done int64) {
	for _, l := range p.layers {
		total += l[0]
		done += l[1]
	}
	return total, done
}

// SetSize fits the bar to the screen's width.
func (p *pullBar) SetSize(width, _ int) { p.bar.SetWidth(min(width-12, 64)) }

// View is the status, the bar, and how much of how much came how fast.
func (p *pullBar) View() string {
	total, done := p.bytes()
	pct := 0.0
	if total > 0 {
		pct = float64(done) / float64(total)
	}
	lines := []string{p.status, "", p.bar.ViewAs(pct)}
	if total > 0 {
		speed := ""
		if p.speed > 0 {
			speed = fmt.Sprintf(" · %s/s", human.Bytes(int64(p.speed)))
		}
		lines = append(lines, fmt.Sprintf("%s of %s · %.0f%%%s", human.Bytes(done), human.Bytes(total), pct*100, speed))
	}
	return strings.Join(lines, "\n")
}
