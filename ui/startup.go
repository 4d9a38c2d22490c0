package ui

import (
	"errors"
	"fmt"
	"lathe/prompts/human"
	"strings"
	"time"

	"charm.land/bubbles/v2/progress"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"lathe/orchestrator"
	"lathe/orchestrator/provider"
	"lathe/orchestrator/session"
)

// phase is where the session stands before it can take prompts.
type phase int

const (
	phaseConnecting phase = iota // asking Ollama about the model
	phaseReady                   // prompts go to the model
	phaseOffline                 // Ollama does not answer: a screen with a retry key
	phaseOffer                   // the model is missing: offer to pull it
	phasePulling                 // pulling it, with a progress bar
	phaseBlocked                 // no usable model: /model and /quit still work
)

// preparedMsg is the answer to the session's first question to the model's
// server.
type preparedMsg struct {
	orchestrator.Prepared
	err error
}

func (m *model) prepare() tea.Cmd {
	m.phase = phaseConnecting
	ctx, session := m.ctx, m.session
	return func() tea.Msg {
		p, err := session.Prepare(ctx)
		return preparedMsg{p, err}
	}
}

// prepared moves to the phase the answer calls for.
func (m *model) prepared(msg preparedMsg) tea.Cmd {
	m.startErr, m.retrying = msg.err, false
	switch err := msg.err; {
	case err == nil:
		m.retries = 0
		m.phase, m.info = phaseReady, msg.Model
		for _, skipped := range msg.Model.Skipped {
			m.notice(noticeWarn, "", "passed over model "+skipped)
		}
		for _, note := range msg.Model.Notes {
			m.notice(noticeWarn, "", note)
		}
		m.syncMode() // a resumed session's, restored by Prepare
		if msg.History != nil {
			m.showHistory(msg.History)
		}
	case errors.As(err, new(*session.InUseError)):
		// Another lathe has it: go on in a new session instead.
		m.notice(noticeWarn, "", err.Error()+": starting a new session instead")
		m.session = m.newSession()
		m.titled, m.title = false, ""
		return m.prepare()
	case errors.Is(err, provider.ErrUnreachable):
		m.phase = phaseOffline
	case m.opts.Suggested == "" && (errors.Is(err, provider.ErrModelNotFound) || errors.Is(err, provider.ErrNoModel)):
		// Nothing to offer: the server loads its own models.
		m.phase = phaseBlocked
		m.notice(noticeError, "No usable model", err.Error()+"\n/model chooses another one.")
	case errors.Is(err, provider.ErrModelNotFound):
		m.phase, m.offer = phaseOffer, m.opts.Engine.Config.Model
	case errors.Is(err, provider.ErrNoModel):
		m.phase, m.offer = phaseOffer, m.opts.Suggested
	default:
		m.phase = phaseBlocked
		m.notice(noticeError, "No usable model", err.Error()+"\n/model chooses another one.")
	}
	return nil
}

// pullState follows a model download.
type pullState struct {
	name     string
	status   string
	layers   map[string][2]int64 // digest → total, completed
	started  time.Time
	lastDone int64
	lastAt   time.Time
	speed    float64 // bytes per second, smoothed
	bar      progress.Model
}

// pullProgress and pullDone come through the bridge while a pull runs.
type (
	pullProgress provider.PullProgress
	pullDone     struct{ err error }
)

func (m *model) startPull() tea.Cmd {
	now := m.now()
	m.phase = phasePulling
	m.pull = &pullState{name: m.offer, layers: map[string][2]int64{}, started: now, lastAt: now,
		bar: progress.New(progress.WithDefaultBlend(), progress.WithoutPercentage())}
	ctx, puller, name, b := m.ctx, m.opts.Puller, m.offer, m.bridge
	return func() tea.Msg {
		err := puller.Pull(ctx, name, func(p provider.PullProgress) { b.send(pullProgress(p)) })
		b.send(pullDone{err})
		return nil
	}
}

// progress records one progress line.
func (p *pullState) progress(pp pullProgress, now time.Time) {
	p.status = pp.Status
	if pp.Digest != "" && pp.Total > 0 {
		p.layers[pp.Digest] = [2]int64{pp.Total, pp.Completed}
	}
	if dt := now.Sub(p.lastAt); dt >= 500*time.Millisecond {
		_, done := p.bytes()
		rate := float64(done-p.lastDone) / dt.Seconds()
		if p.speed == 0 {
			p.speed = rate
		}
		p.speed = 0.7*p.speed + 0.3*rate
		p.lastDone, p.lastAt = done, now
	}
}

func (p *pullState) bytes() (total, done int64) {
	for _, l := range p.layers {
		total += l[0]
		done += l[1]
	}
	return total, done
}

// pulled continues after a pull: with the model, or with the error.
func (m *model) pulled(msg pullDone) tea.Cmd {
	name := m.pull.name
	m.pull = nil
	if msg.err != nil {
		m.phase, m.startErr = phaseBlocked, msg.err
		m.notice(noticeError, "Pull failed", msg.err.Error())
		return nil
	}
	m.opts.Engine.Config.Model = name
	m.session = m.newSession()
	m.notice(noticeInfo, "", "Pulled "+name+".")
	return m.prepare()
}

// startupKey handles keys on the screens before the session is ready.
func (m *model) startupKey(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	switch m.phase {
	case phaseOffline:
		if keyIs(msg, m.keys.Retry) {
			m.retries++
			m.retrying = true
			return m.prepare(), true
		}
	case phaseOffer:
		switch {
		case keyIs(msg, m.keys.Yes):
			return m.startPull(), true
		case keyIs(msg, m.keys.No):
			m.phase = phaseBlocked
			m.notice(noticeWarn, "", fmt.Sprintf("%s is not installed: pull it with \"ollama pull %s\" or choose another with /model", m.offer, m.offer))
			return nil, true
		}
	case phasePulling, phaseConnecting:
		return nil, !keyIs(msg, m.keys.Quit)
	default:
		return nil, false
	}
	return nil, !keyIs(msg, m.keys.Quit)
}

// screen renders the full-window message of the phases that have one.
func (m *model) screen() (string, bool) {
	var title, body, keys string
	switch {
	case m.phase == phaseOffline || m.phase == phaseConnecting && m.retrying:
		// The error says what to do: "is ollama serve running?..."
		title, body, keys = "Cannot reach the server", m.startErr.Error(), "r retry · ctrl+c quit"
		if m.opts.Suggested != "" {
			title = "Cannot reach Ollama"
		}
		if m.retrying {
			keys = "retrying…"
		} else if m.retries > 0 {
			body += fmt.Sprintf("\n\nStill no answer after %s.", human.Plural(m.retries, "retry"))
		}
	case m.phase == phaseOffer:
		title = "Model not installed"
		body = fmt.Sprintf("%s is not installed in Ollama at %s.\n\nPull it now?", m.offer, m.opts.Server)
		keys = "y pull it · n not now · ctrl+c quit"
	case m.phase == phasePulling:
		title = "Pulling " + m.pull.name
		body = m.pullView()
		keys = "ctrl+c quit"
		if m.quitArmed {
			keys = "ctrl+c again to quit"
		}
	default:
		return "", false
	}
	w := min(m.width-4, 72)
	box := lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).Padding(1, 2).Width(w).Render(
		m.st.dialogTitle.Render(title) + "\n\n" + body + "\n\n" + m.st.meta.Render(keys))
	return lipgloss.Place(m.width, m.height, lipgloss.Center, lipgloss.Center, box), true
}

func (m *model) pullView() string {
	p := m.pull
	total, done := p.bytes()
	pct := 0.0
	if total > 0 {
		pct = float64(done) / float64(total)
	}
	p.bar.SetWidth(min(m.width-12, 64))
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
