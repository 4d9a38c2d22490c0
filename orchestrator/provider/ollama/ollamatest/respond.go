package ollamatest

import (
	"encoding/json"
	"net/http"
	"strings"
	"time"
)

// respond answers a chat request with a scripted reply.
func (s *Server) respond(w http.ResponseWriter, r *http.Request, c chatCall, reply Reply) {
	if reply.Status != 0 {
		c.streamPathError(reject(reply.Status, "%s", reply.errorMessage())).write(w)
		return
	}
	load, promptCount, evaluated := s.evaluate(c)
	defer s.release(c)
	if reply.PromptEvalCount > 0 {
		promptCount = reply.PromptEvalCount
		evaluated = min(evaluated, promptCount)
	}
	t := s.plan(reply, c.density)
	t.fit(c.limits(promptCount, reply.Endless), reply)
	if t.shifts > 0 {
		s.shifted(c, promptCount, t.shifts)
	}
	s.tick(load + time.Duration(evaluated)*promptTokenTime)
	final := wireChunk{
		Model:      c.req.Model,
		Message:    t.final,
		Done:       true,
		DoneReason: t.doneReason,
		Metrics:    metrics(load, promptCount, evaluated, t.evalCount),
	}
	if c.stream {
		s.streamTurn(w, r, c, reply, t, final)
		return
	}
	s.singleTurn(w, r, c, reply, t, final)
}

func failing(reply Reply) bool {
	return reply.ErrorLine != "" || reply.Drop || reply.Hang
}

// failsFirst reports whether reply's failure mode ends t: always, unless
// the repeat guard ends the stream before it.
func (t turn) failsFirst(reply Reply) bool {
	return failing(reply) && (!t.repeatStop || reply.AfterChunks < t.sent)
}

// streamTurn writes the turn as NDJSON, or fails after reply.AfterChunks
// chunks. A turn the repeat guard ended has no done line: the stream just
// ends, with HTTP 200 and no error.
func (s *Server) streamTurn(w http.ResponseWriter, r *http.Request, c chatCall, reply Reply, t turn, final wireChunk) {
	lw := &lineWriter{w: w}
	fails := t.failsFirst(reply)
	for i := range t.sent {
		if fails && i == reply.AfterChunks {
			break
		}
		if s.cfg.pace > 0 {
			select {
			case <-r.Context().Done():
				return
			case <-time.After(s.cfg.pace):
			}
		}
		m, cost := t.chunk(i)
		chunk := wireChunk{Model: c.req.Model, CreatedAt: s.tick(time.Duration(cost) * evalTokenTime), Message: m}
		if err := lw.line(chunk); err != nil {
			return // the client went away
		}
	}
	switch {
	case fails:
		s.failStream(w, r, c, reply, lw)
		return
	case t.repeatStop:
		return
	}
	final.CreatedAt = s.tick(time.Duration(max(1, t.finalCost)) * evalTokenTime)
	_ = lw.line(final)
}

// failStream ends a stream the way reply says. An error line before any
// output becomes HTTP 500, as on a real server.
func (s *Server) failStream(w http.ResponseWriter, r *http.Request, c chatCall, reply Reply, lw *lineWriter) {
	switch {
	case reply.ErrorLine != "" && !lw.started:
		writeJSON(w, http.StatusInternalServerError, jsonPlain, errorBody{reply.ErrorLine})
	case reply.ErrorLine != "":
		_ = json.NewEncoder(w).Encode(errorBody{reply.ErrorLine})
		_ = http.NewResponseController(w).Flush()
	case reply.Drop:
		panic(http.ErrAbortHandler) // net/http closes the connection mid-body
	case reply.Hang:
		s.hang(r, c.index)
	}
}

// singleTurn answers stream:false: one object with the text concatenated and
// every tool call, or the reply's failure. When the repeat guard ended the
// turn, the object is ChatHandler's last chunk with the text gathered in:
// done:false, no done_reason, no metrics, the calls only if the request
// had tools.
func (s *Server) singleTurn(w http.ResponseWriter, r *http.Request, c chatCall, reply Reply, t turn, final wireChunk) {
	switch {
	case !t.failsFirst(reply):
	case reply.ErrorLine != "":
		writeError(w, http.StatusInternalServerError, reply.ErrorLine)
		return
	case reply.Drop:
		panic(http.ErrAbortHandler)
	case reply.Hang:
		s.hang(r, c.index)
		return
	}
	var content, thinking strings.Builder
	var calls []wireToolCall
	spent := 0
	for i := range t.sent {
		m, cost := t.chunk(i)
		content.WriteString(m.Content)
		thinking.WriteString(m.Thinking)
		calls = append(calls, m.ToolCalls...)
		spent += cost
	}
	if t.repeatStop {
		last := wireChunk{Model: c.req.Model, CreatedAt: s.tick(time.Duration(spent) * evalTokenTime)}
		last.Message = wireMessage{Role: "assistant", Content: content.String(), Thinking: thinking.String()}
		if len(c.req.Tools) > 0 {
			last.Message.ToolCalls = calls
		}
		writeJSON(w, http.StatusOK, jsonUTF8, last)
		return
	}
	final.Message.Content = content.String()
	final.Message.Thinking = thinking.String()
	final.Message.ToolCalls = append(calls, final.Message.ToolCalls...)
	final.CreatedAt = s.tick(time.Duration(t.evalCount) * evalTokenTime)
	writeJSON(w, http.StatusOK, jsonUTF8, final)
}
