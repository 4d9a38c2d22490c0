package acp

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"

	sdk "github.com/coder/acp-go-sdk"

	"lathe/orchestrator"
	"lathe/orchestrator/mode"
	"lathe/orchestrator/session"
)

// acpSession is one of the client's sessions: a lathe session, the
// engine it runs with, and the run under way.
type acpSession struct {
	a     *agent
	id    sdk.SessionId
	s     *orchestrator.Session
	w     *Wired
	dir   string
	asker *asker

	mu     sync.Mutex
	cancel context.CancelFunc // the run under way's; nil when idle
	runs   sync.WaitGroup
	seq    int // runs so far: tool call ids are unique across them
}

// NewSession implements sdk.Agent: a session working in the client's
// cwd, with the servers it passes.
func (a *agent) NewSession(_ context.Context, p sdk.NewSessionRequest) (sdk.NewSessionResponse, error) {
	s, err := a.open(p.Cwd, p.McpServers, nil)
	if err != nil {
		return sdk.NewSessionResponse{}, err
	}
	if err := a.add(s); err != nil {
		return sdk.NewSessionResponse{}, err
	}
	// Once the client knows the session: not before this answer is out.
	a.out.once(fmt.Sprintf(`"sessionId":%q`, s.id), s.announce)
	return sdk.NewSessionResponse{SessionId: s.id, Modes: s.modes()}, nil
}

// LoadSession implements sdk.AgentLoader: the saved session continues,
// its conversation told again as session/update notifications first.
func (a *agent) LoadSession(ctx context.Context, p sdk.LoadSessionRequest) (sdk.LoadSessionResponse, error) {
	if a.o.Load == nil {
		return sdk.LoadSessionResponse{}, sdk.NewInvalidRequest(map[string]any{"error": "sessions are not saved, so none can be loaded"})
	}
	if _, err := a.session(p.SessionId); err == nil {
		return sdk.LoadSessionResponse{}, sdk.NewInvalidRequest(map[string]any{"error": fmt.Sprintf("session %q is open already", p.SessionId)})
	}
	saved, err := a.o.Load(ctx, string(p.SessionId))
	if errors.Is(err, session.ErrNotFound) {
		return sdk.LoadSessionResponse{}, sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("no saved session %q", p.SessionId)})
	}
	if err != nil {
		return sdk.LoadSessionResponse{}, requestError(err)
	}
	s, err := a.open(p.Cwd, p.McpServers, saved)
	if err != nil {
		return sdk.LoadSessionResponse{}, err
	}
	prepared, err := s.s.Prepare(ctx)
	if err != nil {
		s.close()
		return sdk.LoadSessionResponse{}, requestError(err)
	}
	if err := a.add(s); err != nil {
		return sdk.LoadSessionResponse{}, err
	}
	if prepared.History != nil {
		s.replay(ctx, prepared.History)
	}
	s.announce() // the client named the session: it knows it already
	return sdk.LoadSessionResponse{Modes: s.modes()}, nil
}

// open wires a session in dir: new, or saved when saved is not nil.
func (a *agent) open(dir string, servers []sdk.McpServer, saved *session.Saved) (*acpSession, error) {
	if !filepath.IsAbs(dir) {
		return nil, sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("cwd %q is not an absolute path", dir)})
	}
	mcp, err := mcpServers(servers)
	if err != nil {
		return nil, sdk.NewInvalidParams(map[string]any{"error": err.Error()})
	}
	a.mu.Lock()
	if a.closed {
		a.mu.Unlock()
		return nil, sdk.NewInternalError(map[string]any{"error": "lathe is shutting down"})
	}
	a.opening.Add(1)
	a.mu.Unlock()
	defer a.opening.Done()
	w, err := a.o.Open(a.ctx, Wiring{Dir: filepath.Clean(dir), MCP: mcp, Saved: saved})
	if err != nil {
		return nil, requestError(err)
	}
	s := &acpSession{a: a, w: w, dir: w.Engine.Options.Dir}
	s.asker = &asker{s: s}
	opts := w.Engine.Options
	rules := w.Rules
	rules.All = rules.All || a.o.Yes
	rules.Next = s.asker
	opts.Approver = rules
	opts.Reviewer = s.asker
	if a.o.Yes {
		opts.Reviewer = mode.ApproveAll{}
	}
	opts.Previews = true
	if saved == nil && a.o.Mode != nil {
		opts.Mode = a.o.Mode
	}
	if ed := a.editor(); ed != nil {
		ed.s = s
		w.Engine.Workspace.UseEditor(ed)
	}
	s.s = orchestrator.New(opts)
	if saved != nil {
		if err := s.s.ResumeFrom(*saved); err != nil {
			w.Close()
			return nil, requestError(err)
		}
	}
	s.id = sdk.SessionId(s.s.Snapshot().ID)
	return s, nil
}

// add makes s one of the connection's sessions; one of the same id
// already open, or lathe shutting down, closes it instead.
func (a *agent) add(s *acpSession) error {
	a.mu.Lock()
	_, dup := a.sessions[s.id]
	if !dup && !a.closed {
		a.sessions[s.id] = s
	}
	closed := a.closed
	a.mu.Unlock()
	switch {
	case dup:
		s.close()
		return sdk.NewInvalidRequest(map[string]any{"error": fmt.Sprintf("session %q is open already", s.id)})
	case closed:
		s.close()
		return sdk.NewInternalError(map[string]any{"error": "lathe is shutting down"})
	}
	return nil
}

// modes are the session's modes, as the client shows them.
func (s *acpSession) modes() *sdk.SessionModeState {
	state := &sdk.SessionModeState{CurrentModeId: sdk.SessionModeId(s.s.Snapshot().Mode)}
	for _, m := range modeList {
		state.AvailableModes = append(state.AvailableModes,
			sdk.SessionMode{Id: sdk.SessionModeId(m.id), Name: m.name, Description: sdk.Ptr(m.about)})
	}
	return state
}

var modeList = []struct{ id, name, about string }{
	{"ask", "Ask", "Answers questions about the code; reads, changes nothing"},
	{"plan", "Plan", "Reads, and proposes a plan to review before anything changes"},
	{"build", "Build", "Changes files and runs commands, each asked for unless allowed"},
}

// cancelRun stops the run under way, if any.
func (s *acpSession) cancelRun() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cancel != nil {
		s.cancel()
	}
}

// close stops the run under way, waits for it to end (its state saved),
// runs the SessionEnd hooks and releases the engine.
func (s *acpSession) close() {
	s.cancelRun()
	s.runs.Wait()
	ctx := context.Background()
	s.s.End(ctx, "other", nil)
	_ = s.s.Close(ctx)
	s.w.Close()
}

// update sends the client one session/update for this session. What
// cannot be sent (the client is gone) is logged: the run goes on to its
// end, and is saved.
func (s *acpSession) update(u sdk.SessionUpdate) {
	err := s.a.conn.SessionUpdate(context.Background(), sdk.SessionNotification{SessionId: s.id, Update: u})
	if err != nil {
		s.a.o.Log.Debug().Err(err).Msg("acp: session/update not sent")
	}
}

// announce tells the client the session's slash commands.
func (s *acpSession) announce() {
	s.update(sdk.SessionUpdate{AvailableCommandsUpdate: &sdk.SessionAvailableCommandsUpdate{
		SessionUpdate: "available_commands_update", AvailableCommands: availableCommands()}})
}

// runSeq is the number of the run under way (or the last one).
func (s *acpSession) runSeq() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.seq
}
