package orchestrator

import (
	"cmp"
	"context"
	"fmt"
	"time"

	"lathe/orchestrator/provider"
	"lathe/prompts/human"
)

// What the server did behind lathe's back during a turn: whether it held
// the model, which host took the request, a prompt cut or a reply run past
// the window, and what lathe's own requests (its embeddings) did to it.

// before is what lathe knew of the server just before a request.
type before struct {
	res    residency
	host   string // the host the request was for; "" when the backend does not say
	embeds int64  // the embedding requests made by then
}

func (s *Session) before(ctx context.Context) before {
	return before{res: s.residency(ctx), host: s.hostURL(), embeds: s.embedCalls()}
}

// reckonCut counts a reply cut off before the server's count came
// (stopped at a time limit, interrupted, broken), or stopped past the
// window before it: the prompt as lathe reckons it, and the tokens that
// streamed, one a chunk.
func (s *Session) reckonCut(rep *reply) {
	if !rep.done && rep.tokens > 0 || rep.metrics.Shifted && rep.metrics.PromptTokens == 0 {
		rep.metrics.PromptTokens = s.win.Fixed(rep.sent) + s.win.Estimate(rep.sent[1:])
		rep.metrics.CompletionTokens = max(rep.metrics.CompletionTokens, rep.tokens)
	}
}

// afterReply tells what the server did to a complete reply's request
// behind lathe's back (a prompt cut to fit its window, a reply run past
// it, a failover to another host), works out the turn's timing, and
// tells a reload with its cause.
func (r *run) afterReply(rep *reply, b before) Timing {
	s := r.s
	if m := rep.metrics; m.Truncated {
		r.emit(Warning{Text: fmt.Sprintf("the server cut the conversation to fit its window, silently (it counted %s prompt "+
			"tokens, no more than the last request's or all its window): the model no longer sees all of it, its system "+
			"prompt and tools perhaps gone (%s, or start a new session)", human.Thousands(m.PromptTokens),
			cmp.Or(s.model.Larger, "give the server a larger context"))})
	}
	if m := rep.metrics; m.Shifted && !m.Truncated { // a prompt cut to the whole window shifts at once: told above
		what := "lathe stopped reading it there"
		if rep.doneReason != "length" {
			what = "the rest of it was written without them"
		}
		r.emit(Warning{Text: "the reply ran past the server's window, the server dropping the start of the conversation " +
			"to go on, its system prompt and tools first: " + what})
	}
	moved := b.host != "" && s.hostURL() != b.host
	if moved { // a failover: the other host has nothing of the conversation cached
		s.cache.forget()
		r.emit(Warning{Text: fmt.Sprintf("%s could not be reached: the conversation goes on at %s", b.host, s.hostURL())})
	}
	timing := s.cache.timing(rep.sent, s.prefixOf(rep.sent), rep.metrics, rep.firstToken, b.res)
	r.res.Timing.add(timing, rep.metrics)
	r.checkFit()
	if timing.Reloaded {
		r.emit(Warning{Text: s.reloaded(timing, moved, b.embeds > s.embeds)})
	}
	s.embeds = s.embedCalls()
	return timing
}

// residency asks the server, just before a request, whether it holds the
// model with the session's window; unknown for a server that cannot say
// (an OpenAI-compatible one, the hosts), a remote model, or no answer
// within a second.
func (s *Session) residency(ctx context.Context) residency {
	srv, ok := s.opts.Provider.(provider.Server)
	if !ok || s.model.Remote != "" {
		return residencyUnknown
	}
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	loaded, err := srv.Loaded(ctx)
	if err != nil {
		return residencyUnknown
	}
	for _, l := range loaded {
		if provider.SameModel(l.Name, s.model.Name) && (l.ContextLength == 0 || l.ContextLength == s.model.NumCtx) {
			return resident
		}
	}
	return evicted
}

// prefixOf is the prefix of a request that sends view: its system prompt
// and the tool schemas.
func (s *Session) prefixOf(view []provider.Message) prefix {
	if len(view) == 0 {
		return prefix{}
	}
	return prefix{system: view[0].Content, specs: s.win.Specs, tokens: s.win.Fixed(view)}
}

// hostURL is the server the requests go to now: the host in use, for
// [[hosts]], which fail over; "" when the backend does not say.
func (s *Session) hostURL() string {
	if h, ok := s.opts.Provider.(interface{ URL() string }); ok {
		return h.URL()
	}
	return ""
}

// embedCalls is how many embedding requests the backend has made (the
// code index's), when it counts them.
func (s *Session) embedCalls() int64 {
	if e, ok := s.opts.Provider.(interface{ EmbedCalls() int64 }); ok {
		return e.EmbedCalls()
	}
	return 0
}

// reloaded says that the model was loaded again before this turn, and
// why, lathe's own causes first: a failover to another host, its
// embedding requests on the same server.
func (s *Session) reloaded(t Timing, moved, embedded bool) string {
	why := "it left memory between turns (keep_alive ran out, another program's model took its place, or another " +
		"num_ctx was asked for)"
	switch {
	case moved:
		why = "the request went to another host, which had not loaded it"
	case embedded:
		why = "lathe's code search had the server load its embedding model, which took its place (Ollama holds " +
			"only so many models at once: OLLAMA_MAX_LOADED_MODELS, or the GPU's memory)"
	}
	return fmt.Sprintf("%s was loaded again before this turn (%s): %s", s.model.Name, human.Duration(t.Load), why)
}
