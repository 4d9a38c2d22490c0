package ollamatest

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/ollama/ollama/api"
)

// Content types as the real server (gin) writes them.
const (
	jsonUTF8    = "application/json; charset=utf-8" // c.JSON
	jsonPlain   = "application/json"                // errors on the streaming path
	ndjson      = "application/x-ndjson"
	textPlain   = "text/plain"                // router 404 and 405
	textUTF8    = "text/plain; charset=utf-8" // c.String
	errNoReply  = "ollamatest: no scripted reply left"
	versionText = "0.17.4"
)

// wireChunk is api.ChatResponse as a v0.17.x server writes it (same keys, same
// order), with tool calls whose id and index can be left out as old servers
// did. TestWireChunkMatchesAPI keeps the two in step.
type wireChunk struct {
	Model       string      `json:"model"`
	RemoteModel string      `json:"remote_model,omitempty"`
	RemoteHost  string      `json:"remote_host,omitempty"`
	CreatedAt   time.Time   `json:"created_at"`
	Message     wireMessage `json:"message"`
	Done        bool        `json:"done"`
	DoneReason  string      `json:"done_reason,omitempty"`
	api.Metrics
}

type wireMessage struct {
	Role      string         `json:"role"`
	Content   string         `json:"content"`
	Thinking  string         `json:"thinking,omitempty"`
	ToolCalls []wireToolCall `json:"tool_calls,omitempty"`
}

type wireToolCall struct {
	ID       string       `json:"id,omitempty"`
	Function wireFunction `json:"function"`
}

type wireFunction struct {
	Index     *int            `json:"index,omitempty"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

type errorBody struct {
	Error string `json:"error"`
}

// writeJSON writes v as one JSON object with no trailing newline, as gin's
// c.JSON does.
func writeJSON(w http.ResponseWriter, status int, contentType string, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		status, body = http.StatusInternalServerError, []byte(`{"error":"ollamatest: marshal failed"}`)
	}
	w.Header().Set("Content-Type", contentType)
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// writeError writes {"error":msg} as the real handlers' c.JSON does.
func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, jsonUTF8, errorBody{msg})
}

func writeText(w http.ResponseWriter, status int, text string) {
	w.Header().Set("Content-Type", textPlain)
	w.WriteHeader(status)
	_, _ = w.Write([]byte(text))
}

// lineWriter writes NDJSON: one JSON object and "\n" per line, flushed at
// once so the client really streams.
type lineWriter struct {
	w       http.ResponseWriter
	started bool
}

func (lw *lineWriter) line(v any) error {
	body, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if !lw.started {
		lw.w.Header().Set("Content-Type", ndjson)
		lw.w.WriteHeader(http.StatusOK)
		lw.started = true
	}
	if _, err := lw.w.Write(append(body, '\n')); err != nil {
		return err
	}
	return http.NewResponseController(lw.w).Flush()
}
