package orchestrator

import (
	"context"
	"reflect"

	"lathe/orchestrator/hooks"
	"lathe/orchestrator/mode"
	"lathe/orchestrator/provider"
	"lathe/orchestrator/session"
)

// Reset starts a new conversation with the same model and settings: the
// next Run sends only the system prompt and its prompt. A plan is dropped,
// and what the sandbox blocked of commands is forgotten. The claim on the
// session left is given back within ctx.
func (s *Session) Reset(ctx context.Context) error {
	if err := s.ops.begin(opReset); err != nil {
		return err
	}
	defer s.end()
	s.leave(ctx)
	if s.model.Name != "" {
		s.ended = s.id // its SessionEnd hooks run before the next request
		if s.hooksOn(hooks.SessionEnd) {
			s.writeTranscript(ctx) // the conversation they end, whole
		}
	}
	s.id, s.title, s.created, s.unsaved = newID(), "", false, false
	s.win.Compaction, s.win.Base, s.win.Asked = nil, 0, ""
	s.win.Forget()
	s.blocked.forget()
	if mode.PlanOf(s.mode) != nil {
		s.enter(mode.Build{})
	}
	s.modeRec, s.modes = session.ModeRecord{Mode: s.mode.Name(), Reason: "new session"}, nil
	s.factsStale = true // the facts approved meanwhile are read before the next request
	if s.model.Name != "" {
		s.messages = []provider.Message{s.messages[0]}       // an array of its own: the old history can be collected
		s.messages[0].Content, _ = s.mode.Prompt(s.opts.Env) // rendered before, so it renders
	}
	return nil
}

// Close lets other processes continue the session: a UI that moves on to
// another session closes the one it leaves. Every operation asked for
// afterwards fails with a *BusyError.
func (s *Session) Close(ctx context.Context) error {
	if err := s.ops.begin(opClosed); err != nil {
		return err
	}
	s.leave(ctx) // the session stays busy: closed
	return nil
}

// leave gives back the claim on the session, if it is saved.
func (s *Session) leave(ctx context.Context) {
	if st := s.opts.Recorder; st != nil && s.created {
		if err := st.Release(context.WithoutCancel(ctx), s.id); err != nil {
			s.opts.Log.Error().Err(err).Msg("session store failed")
		}
	}
}

// SetModel switches the session to another model, checked as Prepare
// checks it. The conversation is kept; the next request is a new prompt
// for the new model, which reads it whole once.
func (s *Session) SetModel(ctx context.Context, name string) (provider.ModelInfo, error) {
	if err := s.ops.begin(opModel); err != nil {
		return provider.ModelInfo{}, err
	}
	defer s.end()
	info, err := s.opts.Provider.Model(ctx, name)
	if err != nil {
		return info, err
	}
	if len(s.messages) == 0 {
		system, err := s.mode.Prompt(s.opts.Env)
		if err != nil {
			return info, err
		}
		s.messages = []provider.Message{{Role: "system", Content: system}}
	}
	same := info.Name == s.model.Name && info.NumCtx == s.model.NumCtx
	s.model = info
	s.win.NumCtx = info.NumCtx
	s.think = thinkFor(s.opts.Config.Think, info)
	if !same {
		s.win.Forget()         // another model counts in its own tokens
		s.cache = cacheState{} // and has nothing of this conversation loaded
	}
	s.opts.Log.Debug().Str("model", info.Name).Int("num_ctx", info.NumCtx).Msg("model switched")
	return info, nil
}

// SetMode switches the session to mode m (the user's choice) from its
// next request on, and records the change.
func (s *Session) SetMode(ctx context.Context, m mode.Mode, reason string) error {
	if err := s.ops.begin(opMode); err != nil {
		return err
	}
	defer s.end()
	if reflect.DeepEqual(m, s.mode) {
		return nil
	}
	if err := s.setMode(ctx, mode.Own(m), reason); err != nil {
		return err
	}
	if st := s.opts.Recorder; st != nil && s.created {
		if err := st.SaveMode(ctx, s.id, s.modeRec); err != nil {
			return err
		}
		s.keptMode()
	}
	return nil
}

// setMode makes m the mode from the next message of the history on: its
// system prompt replaces the old one, and its tools are offered. The
// prompt the server has cached no longer matches, so it reads the whole
// conversation again once: that is the price of a mode change. ctx bounds
// the wait for the extra tools (see Options.Extra).
func (s *Session) setMode(ctx context.Context, m mode.Mode, reason string) error {
	if s.model.Name != "" {
		system, err := m.Prompt(s.opts.Env)
		if err != nil {
			return err
		}
		s.messages[0].Content = system
	}
	from := s.mode.Name()
	s.enter(m)
	s.syncTools(ctx, true, false) // the cache is lost anyway: the latest tools join
	s.modeRec = session.ModeRecord{Seq: s.length(), Mode: m.Name(), Plan: mode.PlanOf(m).Record(),
		Reason: reason, Created: s.opts.Now()}
	s.win.Forget() // a new system prompt: the count no longer holds
	s.opts.Log.Debug().Str("from", from).Str("to", m.Name()).Str("reason", reason).
		Strs("tools", s.tools.Names()).Msg("mode changed: the prompt cache starts over")
	return nil
}
