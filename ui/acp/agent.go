// Package acp is lathe as an Agent Client Protocol agent: an editor (Zed,
// a JetBrains IDE, Neovim, Emacs) starts `lathe acp` and speaks JSON-RPC
// to it on stdin and stdout, and lathe's sessions run in the editor's
// agent panel, with its approvals asked there and its file tools working
// on the editor's buffers.
package acp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"slices"
	"sync"

	sdk "github.com/coder/acp-go-sdk"
	"github.com/rs/zerolog"

	"lathe/config"
	"lathe/orchestrator"
	"lathe/orchestrator/engine"
	"lathe/orchestrator/mode"
	"lathe/orchestrator/session"
)

// Options are what the agent runs with: the streams, and how to wire a
// session, which the command line decides.
type Options struct {
	In  io.Reader // the client's requests
	Out io.Writer // lathe's answers: nothing else is ever written there
	Log zerolog.Logger
	// LogOut is where the SDK's own diagnostics go (the log file).
	LogOut io.Writer
	// Version is lathe's, told to the client.
	Version string
	// Mode is the mode a new session starts in (--mode); nil is build.
	Mode mode.Mode
	// Yes approves every call (--yes), and carries plans out.
	Yes bool
	// Open wires a session working in a directory (see Wiring).
	Open func(ctx context.Context, w Wiring) (*Wired, error)
	// Load reads a saved session from the store; session.ErrNotFound when
	// there is none. Nil when there is no store: no session can be
	// loaded.
	Load func(ctx context.Context, id string) (*session.Saved, error)
	// Sees reports whether the model a new session would use can see
	// images: the prompt capability told at initialize.
	Sees func(ctx context.Context) bool
}

// Wiring is what a session is wired for.
type Wiring struct {
	// Dir is the workspace: the session's cwd.
	Dir string
	// MCP are the servers the editor passes, which join the configured
	// ones as the user's own.
	MCP map[string]config.MCPServer
	// Saved is the session to load; nil for a new one.
	Saved *session.Saved
}

// Wired is a session's engine, and what releases it.
type Wired struct {
	Engine *engine.Engine
	// Rules are the approval rules of the config.
	Rules orchestrator.Rules
	// Limits explain why a run stopped.
	Limits config.Limits
	Close  func()
}

// Serve runs the agent until the client closes its end (stdin), or ctx
// ends: the runs under way are then stopped, their sessions saved as they
// stand, and Serve returns nil.
func Serve(ctx context.Context, o Options) error {
	out := &lockedWriter{w: o.Out}
	in, start, stop := screen(o.In, out)
	defer stop()
	a := &agent{o: o, ctx: ctx, out: out, sessions: map[sdk.SessionId]*acpSession{}}
	a.conn = sdk.NewAgentSideConnection(a, out, in)
	logOut := o.LogOut
	if logOut == nil {
		logOut = io.Discard
	}
	a.conn.SetLogger(slog.New(slog.NewTextHandler(logOut, &slog.HandlerOptions{Level: slog.LevelWarn})))
	start()
	select {
	case <-a.conn.Done():
	case <-ctx.Done():
		stop()
		<-a.conn.Done()
	}
	a.shutdown()
	return nil
}

// agent is lathe's side of the connection: its sessions, by id.
type agent struct {
	o    Options
	ctx  context.Context // Serve's: what sessions are wired in outlives their requests
	conn *sdk.AgentSideConnection
	out  *lockedWriter

	mu       sync.Mutex
	client   sdk.ClientCapabilities
	sessions map[sdk.SessionId]*acpSession
	closed   bool
	opening  sync.WaitGroup // sessions being opened, to close once they are
}

var (
	_ sdk.Agent       = (*agent)(nil)
	_ sdk.AgentLoader = (*agent)(nil)
)

// shutdown stops every run and closes every session, once the client is
// gone: what the runs did is saved as the store keeps it.
func (a *agent) shutdown() {
	a.mu.Lock()
	a.closed = true
	a.mu.Unlock()
	a.opening.Wait()
	a.mu.Lock()
	all := slices.Collect(maps.Values(a.sessions))
	a.sessions = map[sdk.SessionId]*acpSession{}
	a.mu.Unlock()
	for _, s := range all {
		s.close()
	}
}

// Initialize implements sdk.Agent: the protocol version is the client's
// when lathe speaks it, else lathe's own (the client decides whether it
// can go on).
func (a *agent) Initialize(ctx context.Context, p sdk.InitializeRequest) (sdk.InitializeResponse, error) {
	a.mu.Lock()
	a.client = p.ClientCapabilities
	a.mu.Unlock()
	version := sdk.ProtocolVersion(sdk.ProtocolVersionNumber)
	if p.ProtocolVersion < version && p.ProtocolVersion >= 1 {
		version = p.ProtocolVersion
	}
	sees := a.o.Sees != nil && a.o.Sees(ctx)
	return sdk.InitializeResponse{
		ProtocolVersion: version,
		AgentCapabilities: sdk.AgentCapabilities{
			LoadSession:        a.o.Load != nil,
			PromptCapabilities: sdk.PromptCapabilities{Image: sees, EmbeddedContext: true},
			McpCapabilities:    sdk.McpCapabilities{Http: true},
		},
		AgentInfo:   &sdk.Implementation{Name: "lathe", Title: sdk.Ptr("lathe"), Version: a.o.Version},
		AuthMethods: []sdk.AuthMethod{},
	}, nil
}

// Authenticate implements sdk.Agent: lathe asks for none.
func (a *agent) Authenticate(context.Context, sdk.AuthenticateRequest) (sdk.AuthenticateResponse, error) {
	return sdk.AuthenticateResponse{}, nil
}

// session is the session id names, or an error for the client.
func (a *agent) session(id sdk.SessionId) (*acpSession, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	s, ok := a.sessions[id]
	if !ok {
		return nil, sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("no session %q", id)})
	}
	return s, nil
}

// clientCaps is what the client said it can do.
func (a *agent) clientCaps() sdk.ClientCapabilities {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.client
}

// terminalOutput reports whether the client renders a command's output
// in a terminal of its own from what the agent sends (Zed's convention,
// clientCapabilities._meta.terminal_output), the command running
// elsewhere: in lathe's sandbox.
func (a *agent) terminalOutput() bool {
	on, _ := a.clientCaps().Meta["terminal_output"].(bool)
	return on
}

// Cancel implements sdk.Agent: the run under way stops as Esc stops it.
// A session lathe does not know is no error (a notification has no
// answer): it is logged.
func (a *agent) Cancel(_ context.Context, p sdk.CancelNotification) error {
	s, err := a.session(p.SessionId)
	if err != nil {
		a.o.Log.Debug().Str("session", string(p.SessionId)).Msg("acp: cancel for no session")
		return nil
	}
	s.cancelRun()
	return nil
}

// SetSessionMode implements sdk.Agent.
func (a *agent) SetSessionMode(ctx context.Context, p sdk.SetSessionModeRequest) (sdk.SetSessionModeResponse, error) {
	s, err := a.session(p.SessionId)
	if err != nil {
		return sdk.SetSessionModeResponse{}, err
	}
	m, err := mode.Parse(string(p.ModeId))
	if err != nil {
		return sdk.SetSessionModeResponse{}, sdk.NewInvalidParams(map[string]any{"error": err.Error()})
	}
	if err := s.s.SetMode(ctx, m, "user"); err != nil {
		return sdk.SetSessionModeResponse{}, requestError(err)
	}
	return sdk.SetSessionModeResponse{}, nil
}

// The methods lathe does not offer: their capabilities are not
// advertised, and a client that calls them anyway is told so.

func (a *agent) CloseSession(context.Context, sdk.CloseSessionRequest) (sdk.CloseSessionResponse, error) {
	return sdk.CloseSessionResponse{}, sdk.NewMethodNotFound(sdk.AgentMethodSessionClose)
}

func (a *agent) ListSessions(context.Context, sdk.ListSessionsRequest) (sdk.ListSessionsResponse, error) {
	return sdk.ListSessionsResponse{}, sdk.NewMethodNotFound(sdk.AgentMethodSessionList)
}

func (a *agent) ResumeSession(context.Context, sdk.ResumeSessionRequest) (sdk.ResumeSessionResponse, error) {
	return sdk.ResumeSessionResponse{}, sdk.NewMethodNotFound(sdk.AgentMethodSessionResume)
}

func (a *agent) SetSessionConfigOption(context.Context, sdk.SetSessionConfigOptionRequest) (sdk.SetSessionConfigOptionResponse, error) {
	return sdk.SetSessionConfigOptionResponse{}, sdk.NewMethodNotFound(sdk.AgentMethodSessionSetConfigOption)
}

// requestError is err for the client: a busy session is an invalid
// request (the client should wait, or cancel), anything else an internal
// error with lathe's message.
func requestError(err error) error {
	var re *sdk.RequestError
	switch {
	case errors.As(err, &re):
		return re
	case errors.Is(err, orchestrator.ErrBusy):
		return sdk.NewInvalidRequest(map[string]any{"error": "the session is busy (" + err.Error() + "): wait for its prompt to end, or cancel it"})
	}
	return sdk.NewInternalError(map[string]any{"error": err.Error()})
}
