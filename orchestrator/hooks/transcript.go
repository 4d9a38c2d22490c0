package hooks

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"lathe/orchestrator/provider"
)

// Transcripts writes sessions' histories as Claude Code writes its
// transcripts, JSON lines a message each, for the hooks that read the
// file transcript_path names (a Stop hook looking at the last reply, a
// logger). A file is written only when a hook runs, appending what is
// new since; a history that changed behind it (an undo, a new session in
// its place) is written again. The files are in lathe's state directory,
// which sandboxed commands cannot read or write, and are removed at
// Close: a resumed session's is written again from its whole history.
type Transcripts struct {
	dir string
	now func() time.Time

	mu    sync.Mutex
	files map[string]*transcript // by session id
}

// transcript is one session's file and how much of the history it holds.
type transcript struct {
	path    string
	written int      // messages in the file
	last    [32]byte // the digest of the last of them
}

// NewTranscripts keeps transcripts in dir, made when first needed.
func NewTranscripts(dir string, now func() time.Time) *Transcripts {
	if now == nil {
		now = time.Now
	}
	return &Transcripts{dir: dir, now: now, files: map[string]*transcript{}}
}

// Write brings the transcript of session id, working in cwd, up to date
// with msgs (its history, the system prompt left out) and returns its
// path; "" when it cannot be written, so that a hook is told none.
func (t *Transcripts) Write(id, cwd string, msgs []provider.Message) string {
	return t.WriteFrom(id, cwd, 0, msgs, nil)
}

// WriteFrom is Write for a history held from message first on: msgs[0]
// is message first. older reads the messages from message from up to
// first that the file needs and msgs do not hold (the whole history
// before first once, after a resume; those let go of since the file was
// last written); nil reads none, and such a file is not written.
func (t *Transcripts) WriteFrom(id, cwd string, first int, msgs []provider.Message,
	older func(from int) ([]provider.Message, error)) string {
	if t == nil || id == "" {
		return ""
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	f := t.files[id]
	if f == nil {
		f = &transcript{path: filepath.Join(t.dir, id+".jsonl")}
	}
	h := history{first: first, msgs: msgs, older: older}
	total := first + len(msgs)
	flag := os.O_WRONLY | os.O_CREATE | os.O_APPEND
	if t.files[id] == nil || f.written > total || (f.written > 0 && !h.read(f.written-1)) ||
		(f.written > 0 && digest(h.at(f.written-1)) != f.last) {
		flag, f.written = os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0
	}
	if f.written == total && flag&os.O_TRUNC == 0 {
		return f.path
	}
	if !h.read(f.written) {
		return ""
	}
	if err := os.MkdirAll(t.dir, 0o700); err != nil {
		return ""
	}
	file, err := os.OpenFile(f.path, flag|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return ""
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	stamp := t.now().UTC().Format(time.RFC3339Nano)
	for i := f.written; i < total; i++ {
		if err := enc.Encode(transcriptLine(id, cwd, stamp, i, h.at(i))); err != nil {
			file.Close()
			return ""
		}
	}
	_, werr := file.Write(buf.Bytes())
	if cerr := file.Close(); werr != nil || cerr != nil {
		delete(t.files, id) // written again in full next time
		return ""
	}
	f.written = total
	if f.written > 0 {
		f.last = digest(h.at(f.written - 1))
	}
	t.files[id] = f
	return f.path
}

// history is a history held from message first on, and the messages
// before read when needed (see WriteFrom).
type history struct {
	first int
	msgs  []provider.Message
	older func(from int) ([]provider.Message, error)
	from  int                // the seq head starts at
	head  []provider.Message // the messages from seq from up to first, read
}

// read makes sure the messages from seq from on are at hand, and reports
// whether they are.
func (h *history) read(from int) bool {
	if from >= h.first || h.head != nil && h.from <= from {
		return true
	}
	if h.older == nil {
		return false
	}
	head, err := h.older(from)
	if err != nil || len(head) != h.first-from {
		return false
	}
	h.from, h.head = from, head
	return true
}

// at is message i; read must have made it at hand.
func (h *history) at(i int) provider.Message {
	if i < h.first {
		return h.head[i-h.from]
	}
	return h.msgs[i-h.first]
}

// Path is the path of session id's transcript, when one was written.
func (t *Transcripts) Path(id string) string {
	if t == nil {
		return ""
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if f := t.files[id]; f != nil {
		return f.path
	}
	return ""
}

// Close removes the transcripts written.
func (t *Transcripts) Close() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	for id, f := range t.files {
		_ = os.Remove(f.path)
		delete(t.files, id)
	}
	return nil
}

// digest tells one message from another.
func digest(m provider.Message) [32]byte {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%d:%s\x00%d:%s\x00%s\x00", m.Role, len(m.Content), m.Content, len(m.Thinking), m.Thinking, m.ToolCallID)
	for _, c := range m.ToolCalls {
		fmt.Fprintf(h, "%s\x00%s\x00%d:%s\x00", c.ID, c.Name, len(c.Arguments), c.Arguments)
	}
	var sum [32]byte
	h.Sum(sum[:0])
	return sum
}

// line is one message of a transcript, in Claude Code's shape: a user's
// prompt as text, a reply as content blocks (thinking, text, tool_use), a
// tool's result as a user message holding a tool_result block.
type line struct {
	Type       string      `json:"type"`
	SessionID  string      `json:"sessionId"`
	UUID       string      `json:"uuid"`
	ParentUUID *string     `json:"parentUuid"`
	Timestamp  string      `json:"timestamp"`
	Cwd        string      `json:"cwd"`
	Message    lineMessage `json:"message"`
}

type lineMessage struct {
	Role    string `json:"role"`
	Content any    `json:"content"`
}

type block struct {
	Type      string          `json:"type"`
	Text      string          `json:"text,omitempty"`
	Thinking  string          `json:"thinking,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	ToolUseID string          `json:"tool_use_id,omitempty"`
	Content   *string         `json:"content,omitempty"`
}

// uuid names message i of session id in the transcript.
func uuid(id string, i int) string { return fmt.Sprintf("%s-%06d", id, i) }

func transcriptLine(id, cwd, stamp string, i int, m provider.Message) line {
	l := line{Type: "user", SessionID: id, UUID: uuid(id, i), Timestamp: stamp, Cwd: cwd}
	if i > 0 {
		parent := uuid(id, i-1)
		l.ParentUUID = &parent
	}
	switch m.Role {
	case "assistant":
		l.Type = "assistant"
		blocks := []block{}
		if m.Thinking != "" {
			blocks = append(blocks, block{Type: "thinking", Thinking: m.Thinking})
		}
		if m.Content != "" {
			blocks = append(blocks, block{Type: "text", Text: m.Content})
		}
		for n, c := range m.ToolCalls {
			args := []byte(c.Args())
			if !json.Valid(args) { // kept as the model wrote it
				args, _ = json.Marshal(map[string]string{"arguments": string(args)})
			}
			blocks = append(blocks, block{Type: "tool_use", ID: callID(c, n), Name: c.Name, Input: args})
		}
		l.Message = lineMessage{Role: "assistant", Content: blocks}
	case "tool":
		content := m.Content
		l.Message = lineMessage{Role: "user", Content: []block{{Type: "tool_result", ToolUseID: m.ToolCallID, Content: &content}}}
	default:
		l.Message = lineMessage{Role: m.Role, Content: m.Content}
	}
	return l
}

// callID is the call's id, or one made of its position when the server
// sent none.
func callID(c provider.ToolCall, n int) string {
	if c.ID != "" {
		return c.ID
	}
	return fmt.Sprintf("call_%d", n)
}
