package ollamatest

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"lathe/orchestrator/provider/internal/requestlog"
)

// Server is a running fake Ollama server. All its methods are safe for
// concurrent use.
type Server struct {
	t       testing.TB
	ts      *httptest.Server
	routes  map[string]map[string]handler
	closing chan struct{} // closed by cleanup: releases hanging replies
	cfg     config

	replies  Replies
	requests requestlog.Log[Request]

	mu       sync.Mutex
	models   []entry
	pullable []entry
	runners  map[string]*runner // loaded models, by fully qualified name
	clock    time.Time
	wait     time.Duration // the scheduler's wait for the next chat request (Busy)
	rng      *rand.Rand    // tool call ids
	tagsRng  *rand.Rand    // the order of /api/tags entries modified in the same second
	waits    waitState
}

// Request is one HTTP request the server received.
type Request struct {
	Method string
	// Path is the URL path, without the query.
	Path   string
	Header http.Header
	// Body is the raw request body.
	Body []byte
	// Cancelled reports that a Hang reply saw this request's context end,
	// which is how a client's cancellation shows on the server.
	Cancelled bool

	// For a chat request with messages to a local model, what the server
	// computed (zero for any other request):

	// PromptTokens is the prompt's token count: the prompt_eval_count sent
	// (num_ctx when the prompt was silently truncated), or, for a request
	// that failed before any output (a prompt too long for truncate:false,
	// a Status reply), the whole rendered prompt's count.
	PromptTokens int
	// CachedTokens is how many of PromptTokens the simulated prompt cache
	// served, the rest being evaluated (see the package documentation).
	CachedTokens int
	// Shifts is how many times the reply filled the context window and
	// the runner shifted it (shift unset or true), silently: each shift
	// keeps the first num_keep tokens (4 by default), discards the older
	// half of the rest (the system prompt and tools first) and generation
	// goes on. A real server leaves no trace of it in any reply.
	Shifts int
	// Images are the images the request's messages carried, decoded from
	// their base64, message by message in order.
	Images [][]byte
	// ImagesSeen reports whether the model could see them (it has the
	// vision capability). A real server drops the images sent to any other
	// model silently: its prompt holds an [img-N] placeholder and nothing
	// else happens.
	ImagesSeen bool
}

// handler serves one route; index is the request's position in Requests.
type handler func(w http.ResponseWriter, r *http.Request, index int, body []byte)

// Option configures New.
type Option func(*config)

type config struct {
	models        []Model
	pullable      []Model
	noCache       bool
	defaultNumCtx int
	bytesPerToken float64
	noCloud       bool
	signedOut     bool
	remotes       []string // OLLAMA_REMOTES
	version       string
	pace          time.Duration
	maxLoaded     int
}

// WithPace makes the server wait d before each streamed chunk of a turn,
// as a GPU writing 1/d tokens a second does, so that a client's cost per
// token can be measured at a realistic speed. Zero, the default, sends as
// fast as the client reads.
func WithPace(d time.Duration) Option {
	return func(c *config) { c.pace = d }
}

// WithMaxLoaded makes the scheduler hold at most n models at once
// (OLLAMA_MAX_LOADED_MODELS; 3 per GPU, or 3 on a CPU, by default, and
// fewer when they do not fit): loading another, for a chat or an
// embedding, unloads the one whose keep_alive ends first ("max runners
// achieved, unloading one"). Zero, the default, holds any number.
func WithMaxLoaded(n int) Option {
	return func(c *config) { c.maxLoaded = n }
}

// WithVersion makes GET /api/version answer v instead of the version the
// fake follows (an older server, say).
func WithVersion(v string) Option {
	return func(c *config) { c.version = v }
}

// WithModels sets the installed models, replacing DefaultModel.
func WithModels(models ...Model) Option {
	return func(c *config) { c.models = models }
}

// WithPullable sets the models POST /api/pull can install. Installed models
// can always be pulled again; any other name fails as on a real server.
func WithPullable(models ...Model) Option {
	return func(c *config) { c.pullable = models }
}

// WithoutCacheSimulation turns off the prompt cache: every prompt token is
// then evaluated, and prompt_eval_duration covers the whole prompt.
func WithoutCacheSimulation() Option {
	return func(c *config) { c.noCache = true }
}

// WithDefaultContext sets the num_ctx used when a request sets none, as
// OLLAMA_CONTEXT_LENGTH or a large GPU would. The default is 4096, a small
// machine's default; either way it is capped at the model's ContextLength.
func WithDefaultContext(numCtx int) Option {
	return func(c *config) { c.defaultNumCtx = numCtx }
}

// WithBytesPerToken sets the density of the fake's tokenizer for every model
// that sets no Model.BytesPerToken: b bytes of rendered prompt, of tool call
// JSON or of streamed text make one token, rounded up. It decides
// prompt_eval_count, eval_count (text streams in chunks of about b bytes,
// one token each, see SplitTokens), the truncate:false check and when a
// reply fills the context window. Real tokenizers give 1.9 to 3 bytes a
// token on file listings, logs and digits, and 3 to 4 on prose and code.
// Zero, the default, keeps the fixed rule: 4 bytes a token for prompts and
// tool calls, one SplitPieces piece a token for text, the estimate lathe
// itself makes, so a test then sees no estimate error.
func WithBytesPerToken(b float64) Option {
	return func(c *config) { c.bytesPerToken = b }
}

// WithoutCloud runs the server as OLLAMA_NO_CLOUD=1 does: POST /api/show
// of a remote model (Model.RemoteHost) answers 403 "ollama cloud is
// disabled: remote model details are unavailable" and a chat request for one
// 403 "ollama cloud is disabled: remote model is unavailable". /api/tags
// still lists them; local models are not affected.
func WithoutCloud() Option {
	return func(c *config) { c.noCloud = true }
}

// WithCloudSignedOut makes remote hosts refuse the server's key, as
// ollama.com does when the server is not signed in: a chat request for a
// remote model answers 401 {"error":"unauthorized","signin_url":"https://ollama.com/connect?name=...&key=..."},
// which the official client returns as an api.AuthorizationError. It
// consumes no scripted reply.
func WithCloudSignedOut() Option {
	return func(c *config) { c.signedOut = true }
}

// WithRemotes sets OLLAMA_REMOTES, the host names remote models may run on
// ("ollama.com" by default). A chat request for a remote model on another
// host answers 400 "this server cannot run this remote model".
func WithRemotes(hosts ...string) Option {
	return func(c *config) { c.remotes = hosts }
}

// New starts a fake server on loopback. Its cleanup, registered with
// t.Cleanup, releases hanging replies, closes the server and fails the test
// with t.Errorf if scripted replies were left unused. New uses only t's
// Helper, Cleanup, Errorf and Fatalf methods.
func New(t testing.TB, opts ...Option) *Server {
	t.Helper()
	cfg := config{models: []Model{DefaultModel()}, defaultNumCtx: 4096, remotes: []string{"ollama.com"}}
	for _, opt := range opts {
		opt(&cfg)
	}
	if b := cfg.bytesPerToken; b < 0 || math.IsNaN(b) || math.IsInf(b, 0) {
		t.Fatalf("ollamatest: WithBytesPerToken(%v): want a positive number, or 0", b)
		cfg.bytesPerToken = 0
	}
	s := &Server{
		t:       t,
		cfg:     cfg,
		closing: make(chan struct{}),
		runners: make(map[string]*runner),
		clock:   startTime,
		rng:     rand.New(rand.NewPCG(1, 2)),
		tagsRng: rand.New(rand.NewPCG(3, 4)),
	}
	s.waits.changed = make(chan struct{})
	var err error
	if s.models, err = entries(cfg.models); err != nil {
		t.Fatalf("%v", err)
	}
	if s.pullable, err = entries(cfg.pullable); err != nil {
		t.Fatalf("%v", err)
	}
	s.routes = s.routeTable()
	s.ts = httptest.NewServer(http.HandlerFunc(s.serveHTTP))
	t.Cleanup(s.close)
	return s
}

func entries(models []Model) ([]entry, error) {
	out := make([]entry, 0, len(models))
	for i, m := range models {
		modified := m.ModifiedAt
		if modified.IsZero() {
			modified = modelTime.Add(-time.Duration(i) * time.Hour)
		}
		e, err := newEntry(m, modified.In(localZone))
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}

// URL returns the server's base URL, what OLLAMA_HOST would hold:
// "http://127.0.0.1:PORT".
func (s *Server) URL() string { return s.ts.URL }

// Script queues replies. Each chat request that passes validation and has
// messages consumes the first queued reply. An invalid reply fails the test
// (t.Errorf) and is not queued.
func (s *Server) Script(replies ...Reply) {
	s.t.Helper()
	valid := make([]Reply, 0, len(replies))
	for i, r := range replies {
		if err := r.Validate(); err != nil {
			s.t.Errorf("ollamatest: Script reply %d: %v", i, err)
			continue
		}
		valid = append(valid, r)
	}
	s.replies.Add(valid...)
}

// Respond makes fn answer every chat request that finds no scripted reply
// left, for conversations whose length a test does not fix in advance.
// Script's replies still come first and must all be used.
func (s *Server) Respond(fn func(req api.ChatRequest) Reply) {
	s.replies.Respond(fn)
}

// Requests returns a copy of every request received, in order.
func (s *Server) Requests() []Request {
	return s.requests.All(func(r Request) Request {
		r.Header, r.Body = r.Header.Clone(), bytes.Clone(r.Body)
		return r
	})
}

// ChatRequests returns the decoded body of every POST /api/chat whose body
// decoded, in order: rejected requests and model loads included.
func (s *Server) ChatRequests() []api.ChatRequest {
	var out []api.ChatRequest
	for _, r := range s.Requests() {
		if r.Method != http.MethodPost || r.Path != "/api/chat" {
			continue
		}
		var req api.ChatRequest
		if json.NewDecoder(bytes.NewReader(r.Body)).Decode(&req) == nil {
			out = append(out, req)
		}
	}
	return out
}

func (s *Server) close() {
	close(s.closing)
	s.ts.Close()
	if left := s.replies.Left(); len(left) > 0 {
		s.t.Errorf("ollamatest: %d scripted replies left unused; first: %s", len(left), left[0].summary())
	}
}

func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	index := s.requests.Add(Request{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body})
	methods, ok := s.routes[r.URL.Path]
	if !ok {
		writeText(w, http.StatusNotFound, "404 page not found")
		return
	}
	h, ok := methods[r.Method]
	if !ok {
		writeText(w, http.StatusMethodNotAllowed, "405 method not allowed")
		return
	}
	h(w, r, index, body)
}

func (s *Server) routeTable() map[string]map[string]handler {
	get := func(h handler) map[string]handler {
		return map[string]handler{http.MethodGet: h, http.MethodHead: h}
	}
	post := func(h handler) map[string]handler {
		return map[string]handler{http.MethodPost: h}
	}
	return map[string]map[string]handler{
		"/":            get(s.handleRoot),
		"/api/version": get(s.handleVersion),
		"/api/tags":    get(s.handleTags),
		"/api/ps":      {http.MethodGet: s.handlePs},
		"/api/show":    post(s.handleShow),
		"/api/pull":    post(s.handlePull),
		"/api/chat":    post(s.handleChat),
		"/api/embed":   post(s.handleEmbed),
	}
}
