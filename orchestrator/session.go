// Package orchestrator runs lathe's turn loop: it sends the conversation to the
// model, streams the reply, runs the tools the model calls, and repeats until
// the model answers or a limit stops it. A Session owns its conversation and
// does one thing at a time.
package orchestrator

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"lathe/config"
	"lathe/orchestrator/checkpoint"
	"lathe/orchestrator/hooks"
	"lathe/orchestrator/mode"
	"lathe/orchestrator/plan"
	"lathe/orchestrator/provider"
	"lathe/orchestrator/session"
	"lathe/orchestrator/textcall"
	"lathe/orchestrator/window"
	"lathe/prompts"
	"lathe/tools"
)

// Options are a Session's collaborators and settings.
type Options struct {
	Provider provider.Provider
	// Tools are the tools of build mode; the other modes offer some of
	// them (see package mode).
	Tools *tools.Registry
	// Extra offers more tools, which may change between runs: the MCP
	// servers'. Nil offers none.
	Extra    ToolSource
	Approver Approver
	// Reviewer decides on the plans proposed in plan mode; nil stops the
	// run with the plan (StopPlanned).
	Reviewer mode.Reviewer
	Log      zerolog.Logger
	Config   config.Config
	// Env is what the system prompts say of the environment.
	Env prompts.Env
	// Facts, when set, gives the facts remembered about the project, for
	// the system prompt: read when the session is prepared and when a new
	// conversation starts (Reset), never in between, so that the prompt
	// stays the same from turn to turn.
	Facts func(ctx context.Context) []string
	// RepoMap, when set, gives the map of the repository for the system
	// prompt, read as Facts is.
	RepoMap func(ctx context.Context) string
	// Mode is the mode to start in; nil means build mode, or for a
	// resumed session the mode it was in.
	Mode mode.Mode
	// Recorder keeps the session durably; nil keeps nothing.
	Recorder Recorder
	// Checkpoints keeps what each run changes in the files, to take runs
	// back (Undo, Redo, Rewind); nil keeps nothing. It needs a Recorder.
	Checkpoints *checkpoint.Tracker
	// Dir is the working directory, recorded with the session.
	Dir string
	// Previews asks for the diff of each write before it is approved, for
	// a UI that shows it; without it no preview is computed.
	Previews bool
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Hooks runs the user's commands at the session's events; nil runs
	// none.
	Hooks Hooks
	// Transcripts writes the history as a file for the hooks that read
	// transcript_path; nil writes none.
	Transcripts *hooks.Transcripts
	// Observer, when set, is told of every run (see Observer).
	Observer Observer
}

// ToolSource offers tools besides the built-in ones: the MCP servers',
// which start in the background, fail and change their lists.
type ToolSource interface {
	// Tools returns the tools to offer with a window of numCtx tokens, and
	// what changed, one sentence each, to tell before the request that
	// offers it. latest takes every list's latest version (a mode change
	// or a reload: the prompt cache is lost anyway); otherwise a list
	// offered before stays as it was, so that requests stay append-only
	// within a run. run says a run starts.
	Tools(ctx context.Context, numCtx int, latest, run bool) ([]tools.Tool, []string)
}

// Session is one conversation with one model. It does one operation at a
// time (a run, a compaction, a model or mode switch...): an operation asked
// for while another is under way fails at once with a *BusyError. Snapshot
// may be called at any time.
type Session struct {
	opts    Options
	resolve func(string) (string, bool) // a loosely written tool name to a registered one
	every   *tools.Registry             // the tools of every mode
	all     *tools.Registry             // build mode's tools: the built-in ones and the extra ones
	extra   []tools.Tool                // the extra tools offered (Options.Extra)
	notes   []string                    // what changed of the tools, not told yet

	ops ops // what is under way, and the snapshot

	// The rest belongs to the operation under way.
	id      string
	title   string
	created bool // the session is in the store
	// unsaved: a message of the conversation may be missing from the
	// store (it failed), which must then not be let go of (see held.go).
	unsaved    bool
	model      provider.ModelInfo
	messages   []provider.Message // the system prompt, then the history from seq win.Base on (see held.go)
	mode       mode.Mode
	tools      *tools.Registry      // the tools of the mode
	modeRec    session.ModeRecord   // the mode as stored; saved when the session is created
	modes      []session.ModeRecord // every mode record saved, in seq order (see Pages)
	resume     *session.Saved       // restored by Prepare, once the model is known
	win        window.Window
	think      *bool      // the think value of every request (see thinkFor)
	cache      cacheState // what the server's prompt cache holds of this session
	fitChecked string     // the model whose GPU share was checked
	embeds     int64      // the embedding requests the backend had made when the last reply ended
	// toolsSettled: the tools that cannot answer were left out (see
	// settleTools), withheld names them.
	toolsSettled bool
	withheld     []string
	// factsStale: a new conversation started; the facts are read again
	// before its first request (see refreshFacts).
	factsStale bool
	blocked    blockedCommands
	// ended is the id of the conversation Reset left, whose SessionEnd
	// hooks run before the next one's first request; "" for none.
	ended string

	laterMu sync.Mutex
	pending []Event // what happened between runs, told at the next (see later)
}

// New returns a session; Prepare (or Run) asks the model's server first.
func New(opts Options) *Session {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	s := &Session{opts: opts, id: newID()}
	s.win.Shares = opts.Config.Context
	m := mode.Own(opts.Mode)
	s.offer(m)
	s.modeRec = session.ModeRecord{Mode: m.Name(), Plan: mode.PlanOf(m).Record(), Reason: "start"}
	s.publish()
	return s
}

// Prepared is what Prepare learned: the model, and for a resumed session
// its history as restored.
type Prepared struct {
	Model provider.ModelInfo
	// History is the resumed session's history, mended where the process
	// died; nil for a new session.
	History *History
	// Withheld are the tools left out of this session because they
	// cannot answer in it (search_code without an embedding model).
	Withheld []string
}

// History is a resumed session's history as a UI shows it: its newest
// messages, and the older ones a page at a time, as the user scrolls back
// to them, so that showing a session costs its last screen, not its length.
type History struct {
	ID, Title string
	// Messages are the newest messages of the history as the model sees
	// it, in seq order, mended where the process died; every tool result
	// has its ToolMeta. Older reads the messages before them.
	Messages []session.Message
	// Older reads the page of at most about n messages before seq before,
	// ending there: it starts where a round starts (never on a call's
	// result, whose call it would leave out), so it may hold a few more.
	// Nil when Messages hold the whole history.
	Older      func(ctx context.Context, before, n int) ([]session.Message, error)
	Compaction *session.Compaction
	Modes      []session.ModeRecord // in seq order
}

// Len is how many messages the history has, the pages not read included.
func (h *History) Len() int {
	if len(h.Messages) == 0 {
		return 0
	}
	return h.Messages[len(h.Messages)-1].Seq + 1
}

// All reads the whole history, in seq order: for a client that is told
// every message at once.
func (h *History) All(ctx context.Context) ([]session.Message, error) {
	if h.Older == nil || len(h.Messages) == 0 || h.Messages[0].Seq == 0 {
		return h.Messages, nil
	}
	first := h.Messages[0].Seq
	older, err := h.Older(ctx, first, first)
	if err != nil {
		return nil, err
	}
	return append(older[:len(older):len(older)], h.Messages...), nil
}

// historyPage is how many messages a page of History holds, about.
const historyPage = 200

// paged is a history whose messages from seq first on are in msgs, its
// last page in Messages; older reads the pages before first (nil when
// first is 0).
func paged(h *History, msgs []session.Message, first int,
	older func(ctx context.Context, before, n int) ([]session.Message, error)) *History {
	h.Messages = msgs[pageStart(msgs, len(msgs), historyPage):]
	if len(h.Messages) == len(msgs) && first == 0 {
		return h
	}
	h.Older = func(ctx context.Context, before, n int) ([]session.Message, error) {
		before = min(max(before, 0), first+len(msgs))
		if from := before - first - max(n, 1); from >= 0 || older == nil {
			at := before - first
			return msgs[pageStart(msgs, at, n):at:at], nil
		}
		return older(ctx, before, n)
	}
	return h
}

// pageStart is where the page of about n messages ending before before
// starts in msgs (indexed by seq): moved back to the call of a result.
func pageStart(msgs []session.Message, before, n int) int {
	from := max(0, before-max(n, 1))
	for from > 0 && msgs[from].Message.Role == "tool" {
		from--
	}
	return from
}

// Prepare chooses the model, checks that it can call tools, and fixes the
// context window for the rest of the session; for a session to resume
// (ResumeFrom), it then restores its history. Once it succeeded, later
// calls return the model again.
func (s *Session) Prepare(ctx context.Context) (Prepared, error) {
	if err := s.ops.begin(opPrepare); err != nil {
		return Prepared{}, err
	}
	defer s.end()
	return s.prepare(ctx)
}

func (s *Session) prepare(ctx context.Context) (Prepared, error) {
	if s.model.Name != "" {
		return Prepared{Model: s.model, Withheld: s.withheld}, nil
	}
	info, err := s.opts.Provider.Model(ctx, s.opts.Config.Model)
	if err != nil {
		return Prepared{Model: info}, err
	}
	s.settleTools(ctx)
	s.readFacts(ctx)
	source := "startup"
	if s.resume != nil {
		source = "resume"
	}
	s.sessionStart(ctx, source)
	system, err := s.mode.Prompt(s.opts.Env)
	if err != nil {
		return Prepared{Model: info}, err
	}
	s.model = info
	s.win.NumCtx = info.NumCtx
	s.think = thinkFor(s.opts.Config.Think, info)
	s.messages = []provider.Message{{Role: "system", Content: system}}
	p := Prepared{Model: info, Withheld: s.withheld}
	if saved := s.resume; saved != nil {
		h, err := s.restore(ctx, *saved)
		var inUse *session.InUseError
		switch {
		case errors.As(err, &inUse):
			s.model = provider.ModelInfo{}
			return p, err // it names the session
		case err != nil:
			s.model = provider.ModelInfo{} // not prepared: the next call tries again
			return p, fmt.Errorf("resume session %s: %w", saved.ID, err)
		}
		s.resume, p.History = nil, h
	}
	s.syncTools(ctx, true, false)
	s.opts.Log.Debug().Str("model", info.Name).Strs("capabilities", info.Capabilities).
		Int("context_length", info.ContextLength).Int("num_ctx", info.NumCtx).Msg("model ready")
	return p, nil
}

// settleTools leaves out, once, the tools that cannot answer in this
// session (search_code without an embedding model): the tools offered
// must be the same on every request.
func (s *Session) settleTools(ctx context.Context) {
	if s.toolsSettled {
		return
	}
	s.toolsSettled = true
	if avail := s.opts.Tools.Available(ctx); avail != s.opts.Tools {
		for _, t := range s.opts.Tools.All() {
			if _, ok := avail.Lookup(t.Name()); !ok {
				s.withheld = append(s.withheld, t.Name())
			}
		}
		s.opts.Tools = avail
		s.offer(s.mode)
	}
}

// readFacts reads the facts remembered about the project, and its map,
// into the environment the system prompts render.
func (s *Session) readFacts(ctx context.Context) {
	if s.opts.Facts != nil {
		s.opts.Env.Facts = s.opts.Facts(ctx)
	}
	if s.opts.RepoMap != nil {
		s.opts.Env.RepoMap = s.opts.RepoMap(ctx)
	}
	s.factsStale = false
}

// refreshFacts reads the facts again for a new conversation (after
// Reset), before its first request, and renders its system prompt with
// them: Reset itself does no I/O, a UI calls it as the user types /new.
func (s *Session) refreshFacts(ctx context.Context) {
	if !s.factsStale || len(s.messages) != 1 || s.win.Base > 0 {
		return
	}
	s.readFacts(ctx)
	if s.ended != "" {
		if s.hooksOn(hooks.SessionEnd) {
			s.endHooks(ctx, "clear", s.ended, s.later)
		}
		s.ended = ""
		s.sessionStart(ctx, "clear")
	}
	if system, err := s.mode.Prompt(s.opts.Env); err == nil {
		s.messages[0].Content = system
	}
}

// thinkFor is the think value every request of a conversation with model
// sends, side requests included: the configured one, else true for a model
// that lists the thinking capability (what the server does with none; said
// outright, so that no request differs), else none. A chat template may
// render the conversation differently for each value, and the server would
// read it all again on every switch.
func thinkFor(configured *bool, model provider.ModelInfo) *bool {
	switch {
	case configured != nil:
		return configured
	case model.Lists("thinking"):
		on := true
		return &on
	}
	return nil
}

// thinking reports whether the model thinks before it answers.
func (s *Session) thinking() bool { return s.think != nil && *s.think }

// ResumeFrom makes the session continue a saved one: Prepare restores it
// once the model is checked.
func (s *Session) ResumeFrom(saved session.Saved) error {
	if err := s.ops.begin(opResume); err != nil {
		return err
	}
	defer s.end()
	s.resume, s.id, s.title = &saved, saved.ID, saved.Title
	return nil
}

// offer builds the tools of every mode from the built-in tools and the
// extra ones, and enters m with them.
func (s *Session) offer(m mode.Mode) {
	s.all = s.opts.Tools
	if len(s.extra) > 0 {
		s.all = tools.NewRegistry(append(s.opts.Tools.All(), s.extra...)...)
	}
	s.every = mode.Every(s.all)
	s.resolve = textcall.Resolver(s.every.Names())
	s.enter(m)
}

// enter makes m the mode, with its tools.
func (s *Session) enter(m mode.Mode) {
	s.mode, s.tools = m, m.Tools(s.all)
	specs := provider.SpecsJSON(s.tools.Specs())
	s.win.Specs, s.win.SpecsShape = len(specs), window.ShapeTokens(string(specs))
}

// request is the chat request for the conversation so far. Everything but
// the messages is the same value on every turn, and the messages only ever
// grow, so each request starts with the bytes of the one before it.
func (s *Session) request() *provider.Request {
	return &provider.Request{
		Model:    s.model,
		Messages: s.win.View(s.messages),
		Tools:    s.tools.Specs(),
		Think:    s.think,
	}
}

// end finishes an operation: the snapshot is brought up to date first.
func (s *Session) end() {
	s.publish()
	s.ops.end()
}

// publish brings the snapshot up to date with the operation's state; only
// the operation under way calls it.
func (s *Session) publish() {
	snap := Snapshot{ID: s.id, Title: s.title, Model: s.model, Mode: s.mode.Name(),
		Plan: mode.PlanOf(s.mode).Clone(), Saved: s.created, Messages: s.length()}
	if s.model.Name != "" && s.length() > 0 {
		snap.Used, snap.Counted = s.win.Next(s.messages), s.win.Used() > 0
	}
	s.ops.publish(snap)
}

// Snapshot is the session as a UI shows it, taken between the steps of an
// operation; safe to call at any time.
type Snapshot struct {
	ID    string
	Title string
	Model provider.ModelInfo // zero until prepared
	Mode  string
	Plan  *plan.Plan // build mode's plan; do not modify
	// Used is how many tokens of the window the conversation takes: the
	// server's last count and an estimate of what came after it, or an
	// estimate of it all when no count holds (a new system prompt, a
	// compaction, a model that never answered); 0 before the first prompt.
	Used int
	// Counted says whether Used starts from the server's count.
	Counted bool
	// Saved says whether the session is in the store, to be resumed by ID.
	Saved bool
	// Messages is how many messages the history has: the seq of the next.
	Messages int
	// Busy says what is under way; "" when the session is idle.
	Busy string
}

// Snapshot returns the session as it stands.
func (s *Session) Snapshot() Snapshot { return s.ops.snapshot() }

// SavedID is the session's id when it is saved, to be resumed; empty when
// it is not.
func (s Snapshot) SavedID() string {
	if !s.Saved {
		return ""
	}
	return s.ID
}

// savedID is the session's id when it is saved; empty when it is not.
func (s *Session) savedID() string {
	if !s.created {
		return ""
	}
	return s.id
}

func newID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
