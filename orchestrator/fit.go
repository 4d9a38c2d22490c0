package orchestrator

import (
	"context"
	"errors"
	"fmt"

	"lathe/orchestrator/provider"
	"lathe/prompts/human"
)

// Spill: the model is loaded with part of it on the CPU, which makes every
// token slow. FitNumCtx is the window that would fit it all on the GPU
// (the KV cache shrinks with it); 0 when no window would.
type Spill struct {
	Model     string
	Size      int64 // memory the loaded model takes
	VRAM      int64 // of which on the GPU
	NumCtx    int
	FitNumCtx int
}

// Text says it for people, with what to do.
func (e Spill) Text() string {
	s := fmt.Sprintf("%s runs partly on the CPU: %s of its %s are in GPU memory, with num_ctx %s",
		e.Model, human.Bytes(e.VRAM), human.Bytes(e.Size), human.Thousands(e.NumCtx))
	if e.FitNumCtx > 0 {
		s += fmt.Sprintf("; num_ctx %s would fit it all on the GPU", human.Thousands(e.FitNumCtx))
	}
	return s
}

func (Spill) isEvent() {}

// minNumCtx is the smallest window lathe suggests: below it, its own
// prompt and a few turns no longer fit.
const minNumCtx = 4096

// checkFit asks the server, once per model, how the model is loaded, and
// emits Spill when part of it is on the CPU.
func (r *run) checkFit() {
	s := r.s
	srv, ok := s.opts.Provider.(provider.Server)
	if !ok || s.fitChecked == s.model.Name || s.model.Remote != "" {
		return
	}
	s.fitChecked = s.model.Name
	loaded, err := srv.Loaded(r.ctx)
	if err != nil {
		if !errors.Is(err, context.Canceled) {
			s.opts.Log.Debug().Err(err).Msg("cannot list the loaded models")
		}
		return
	}
	for _, l := range loaded {
		if !provider.SameModel(l.Name, s.model.Name) || l.VRAM >= l.Size || l.Size == 0 {
			continue
		}
		if l.VRAM <= 0 {
			// None of it in GPU memory: the server has no GPU it can use.
			// Not a spill a smaller window would mend: said once.
			s.opts.Log.Info().Str("model", l.Name).Int64("size", l.Size).Msg("the model runs on the CPU")
			r.emit(Warning{Text: fmt.Sprintf("%s runs on the CPU: the server holds none of it in GPU memory (it has no GPU "+
				"it can use), so every token is computed by the CPU", l.Name)})
			return
		}
		e := Spill{Model: l.Name, Size: l.Size, VRAM: max(l.VRAM, 0), NumCtx: s.model.NumCtx}
		if kv := s.model.KVBytesPerToken; kv > 0 && l.VRAM > 0 {
			spilled := l.Size - l.VRAM
			fit := s.model.NumCtx - int((spilled+kv-1)/kv)
			if fit = fit / 1024 * 1024; fit >= minNumCtx {
				e.FitNumCtx = fit
			}
		}
		s.opts.Log.Info().Str("model", e.Model).Int64("size", e.Size).Int64("size_vram", e.VRAM).
			Int("num_ctx", e.NumCtx).Int("fit_num_ctx", e.FitNumCtx).Msg("the model spills to the CPU")
		r.emit(e)
		return
	}
}

// SetNumCtx changes the context window for the rest of the session (the
// model is loaded again with it on the next request). It must hold the
// conversation as it stands.
func (s *Session) SetNumCtx(n int) error {
	if err := s.ops.begin(opModel); err != nil {
		return err
	}
	defer s.end()
	if n < minNumCtx {
		return fmt.Errorf("num_ctx %d is below %d", n, minNumCtx)
	}
	if s.model.ContextLength > 0 && n > s.model.ContextLength {
		return fmt.Errorf("num_ctx %d is above the model's %d", n, s.model.ContextLength)
	}
	if s.length() > 0 && s.win.Next(s.messages) > n*9/10 {
		return fmt.Errorf("the conversation takes about %s tokens: it would not fit num_ctx %s (compact it first)",
			human.Thousands(s.win.Next(s.messages)), human.Thousands(n))
	}
	s.model.NumCtx, s.win.NumCtx = n, n
	s.win.Forget()
	s.cache = cacheState{}
	s.fitChecked = "" // check again once loaded with it
	return nil
}

// Preload has the server load the model now, with the session's window
// and keep-alive, so that the first prompt does not wait for the load: a
// UI calls it once the session is prepared, in the background. It is not
// an operation of the session: a prompt may run meanwhile (its request
// waits for the load on the server, as it would have).
//
// It reports whether it loaded the model: not for a server that cannot be
// asked to, nor for a remote model.
func (s *Session) Preload(ctx context.Context) (bool, error) {
	model := s.Snapshot().Model
	srv, ok := s.opts.Provider.(provider.Server)
	if !ok || model.Name == "" || model.Remote != "" {
		return false, nil
	}
	if err := srv.Preload(ctx, model); err != nil {
		return false, err
	}
	return true, nil
}
