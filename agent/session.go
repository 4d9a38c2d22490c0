// Package agent runs lathe's turn loop: it sends the conversation to
// Ollama, streams the reply, runs the tools the model calls, and repeats
// until the model answers or a limit stops it.
package agent

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/rs/zerolog"

	"lathe/agent/textcall"
	"lathe/config"
	"lathe/prompts"
	"lathe/tools"
)

// Client is the part of the Ollama API the loop uses.
type Client interface {
	Chat(ctx context.Context, req *api.ChatRequest, fn api.ChatResponseFunc) error
	Show(ctx context.Context, req *api.ShowRequest) (*api.ShowResponse, error)
	List(ctx context.Context) (*api.ListResponse, error)
}

var _ Client = (*api.Client)(nil)

// Options are a Session's collaborators and settings.
type Options struct {
	Client Client
	// Tools are the tools of build mode; the other modes offer the
	// read-only ones.
	Tools    *tools.Registry
	Approver Approver
	// Reviewer decides on the plans proposed in plan mode; nil stops the
	// run with the plan (StopPlanned).
	Reviewer Reviewer
	Log      zerolog.Logger
	Config   config.Config
	// Env is what the system prompts say of the environment.
	Env prompts.Env
	// Mode is the mode to start in; nil means build mode, or for a
	// resumed session the mode it was in.
	Mode Mode
	// BaseURL names the server in error messages.
	BaseURL string
	// Store keeps the session durably; nil keeps nothing.
	Store Store
	// Dir is the working directory, recorded with the session.
	Dir string
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Session is one conversation with one model. Its methods must not be
// called concurrently.
type Session struct {
	opts     Options
	resolve  func(string) (string, bool) // a loosely written tool name to a registered one
	id       string
	title    string
	created  bool // the session is in the store
	model    ModelInfo
	options  map[string]any
	messages []api.Message // the whole history, system prompt first

	mode        Mode
	tools       *tools.Registry // the tools of the mode
	toolsTokens int             // their schemas' estimated size in tokens
	modeRec     ModeRecord      // the mode as stored; saved when the session is created

	resume     *SavedSession // restored by Prepare, once the model is known
	compaction *Compaction   // requests summarize the messages before it
	used       int           // tokens Ollama counted for the last reply, prompt and output
	usedAt     int           // len(messages) when used was counted; 0 when nothing was
}

// New returns a session; call Prepare before Run.
func New(opts Options) *Session {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	s := &Session{opts: opts, id: newID()}
	s.resolve = textcall.Resolver(append(opts.Tools.Names(), modeToolNames...))
	mode := ownMode(opts.Mode)
	s.enter(mode)
	s.modeRec = ModeRecord{Mode: mode.Name(), Plan: s.plan().Clone(), Reason: "start"}
	return s
}

// ResumeFrom makes the session continue a saved one: Prepare restores it
// once the model is checked (see Restore).
func (s *Session) ResumeFrom(saved SavedSession) {
	s.resume = &saved
	s.id = saved.ID
}

// ID identifies the session.
func (s *Session) ID() string { return s.id }

// Model is what Prepare learned about the model.
func (s *Session) Model() ModelInfo { return s.model }

// Messages returns the conversation so far, system prompt first. The slice
// is the session's own: do not modify it.
func (s *Session) Messages() []api.Message { return s.messages }

// Prepare chooses the model, checks with /api/show that it can call tools,
// and fixes the context window for the rest of the session. It runs once;
// later calls return the first answer.
func (s *Session) Prepare(ctx context.Context) (ModelInfo, error) {
	if s.model.Name != "" {
		return s.model, nil
	}
	cfg := s.opts.Config
	info, err := resolveModel(ctx, s.opts.Client, cfg.Model, cfg.Options.NumCtx, s.opts.BaseURL)
	if err != nil {
		return info, err
	}
	s.model = info
	s.options = cfg.Options.Map(info.NumCtx)
	system, err := systemPrompt(s.opts.Env, s.mode)
	if err != nil {
		s.model = ModelInfo{}
		return info, err
	}
	s.messages = []api.Message{{Role: "system", Content: system}}
	if saved := s.resume; saved != nil {
		s.resume = nil
		if err := s.Restore(ctx, *saved); err != nil {
			s.model, s.resume = ModelInfo{}, saved // not prepared: the next call tries again
			return info, fmt.Errorf("resume session %s: %w", saved.ID, err)
		}
	}
	s.opts.Log.Debug().Str("model", info.Name).Strs("capabilities", info.Capabilities).
		Int("context_length", info.ContextLength).Int("num_ctx", info.NumCtx).Msg("model ready")
	return info, nil
}

// request is the chat request for the conversation so far. Everything but
// the messages is the same value on every turn, and the messages only ever
// grow, so each request starts with the bytes of the one before it.
func (s *Session) request() *api.ChatRequest {
	stream, truncate := true, false
	cfg := s.opts.Config
	req := &api.ChatRequest{
		Model:     s.model.Name,
		Messages:  s.view(),
		Stream:    &stream,
		Tools:     s.tools.Definitions(),
		Options:   s.options,
		KeepAlive: &api.Duration{Duration: cfg.KeepAlive.Duration},
		Truncate:  &truncate,
	}
	if cfg.Think != nil {
		req.Think = &api.ThinkValue{Value: *cfg.Think}
	}
	return req
}

func newID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
