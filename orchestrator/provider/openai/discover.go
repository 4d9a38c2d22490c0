package openai

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"lathe/orchestrator/provider"
)

// Kind is the software of an OpenAI-compatible server, as lathe tells it
// from what the server answers.
type Kind string

const (
	KindLlamaCpp Kind = "llama.cpp"
	KindLMStudio Kind = "LM Studio"
	KindVLLM     Kind = "vLLM"
	KindSGLang   Kind = "SGLang"
	KindOllama   Kind = "Ollama's OpenAI-compatible API"
	KindUnknown  Kind = "an OpenAI-compatible server"
)

// larger says how to give a model a larger window on a server of kind k.
func (k Kind) larger() string {
	switch k {
	case KindLlamaCpp:
		return "restart llama-server with a larger -c"
	case KindVLLM:
		return "restart vLLM with a larger --max-model-len"
	case KindSGLang:
		return "restart SGLang with a larger --context-length"
	case KindLMStudio:
		return "load the model in LM Studio with a longer context length"
	case KindOllama:
		return "use lathe's own Ollama path, provider = \"ollama\", which sets the window itself; or raise OLLAMA_CONTEXT_LENGTH"
	}
	return "start the server with a larger window, and set context_length to it"
}

// served is a model the server lists, with what it said of it.
type served struct {
	id      string
	window  int  // the context window it runs with; 0 if unknown
	trained int  // its trained context length; 0 if unknown
	loaded  bool // in memory now (LM Studio tells; the others serve what they load)
	chat    bool // a chat model (LM Studio lists embedding models too)
	tools   *bool
	vision  bool
	numCtx  int // the num_ctx its Modelfile sets (Ollama); 0 for none
}

// serverInfo is what the server said of itself.
type serverInfo struct {
	kind    Kind
	version string
	models  []served
	notes   []string
}

// discover asks the server, once, what it is and what it serves: llama.cpp
// answers GET /props (its window per slot, its chat template), LM Studio
// GET /api/v0/models (each model's type, maximum and loaded context), and
// every server GET /v1/models, where vLLM and SGLang give max_model_len
// and llama.cpp its window again. A failure is not remembered: the next
// call asks again.
func (c *Client) discover(ctx context.Context) (serverInfo, error) {
	c.mu.Lock()
	if c.probed.kind != "" {
		defer c.mu.Unlock()
		return c.probed, nil
	}
	c.mu.Unlock()
	info, err := c.probe(ctx)
	if err != nil {
		return info, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.probed = info
	return info, nil
}

// kind is the kind of server as found so far; KindUnknown before.
func (c *Client) kind() Kind {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.probed.kind == "" {
		return KindUnknown
	}
	return c.probed.kind
}

// Kind is the kind of server, found the first time it is needed.
func (c *Client) Kind(ctx context.Context) (Kind, error) {
	info, err := c.discover(ctx)
	return info.kind, err
}

func (c *Client) probe(ctx context.Context) (serverInfo, error) {
	var info serverInfo
	var list modelList
	if err := c.get(ctx, c.base+"/models", &list); err != nil {
		return info, c.classify(err)
	}
	info.kind = KindUnknown
	for _, m := range list.Data {
		s := served{id: m.ID, chat: true, loaded: true, window: m.MaxModelLen}
		if m.Meta != nil {
			s.window, s.trained = m.Meta.NCtx, m.Meta.NCtxTrain
		}
		info.models = append(info.models, s)
		switch strings.ToLower(m.OwnedBy) {
		case "vllm":
			info.kind = KindVLLM
		case "sglang":
			info.kind = KindSGLang
		case "llamacpp":
			info.kind = KindLlamaCpp
		}
	}
	var props llamaProps
	if c.get(ctx, c.root()+"/props", &props) == nil && props.Settings.NCtx > 0 {
		info.kind, info.version = KindLlamaCpp, props.BuildInfo
		for i := range info.models {
			info.models[i].window = props.Settings.NCtx // per slot: what one request gets
			info.models[i].vision = props.Modalities.Vision
		}
		if !c.jinja(ctx) {
			info.notes = append(info.notes, fmt.Sprintf("llama.cpp at %s runs without --jinja, and its tool calling needs it: "+
				"restart llama-server with --jinja", c.base))
		}
		return info, nil
	}
	var ver struct {
		Version string `json:"version"`
	}
	if c.get(ctx, c.root()+"/api/version", &ver) == nil && ver.Version != "" {
		info.kind, info.version = KindOllama, ver.Version
		c.ollamaModels(ctx, &info)
		return info, nil
	}
	var lms lmStudioList
	if c.get(ctx, c.root()+"/api/v0/models", &lms) == nil && len(lms.Data) > 0 && lms.Data[0].Type != "" {
		info.kind, info.models = KindLMStudio, nil
		for _, m := range lms.Data {
			s := served{id: m.ID, trained: m.MaxContextLength, loaded: m.State == "loaded",
				chat: m.Type == "llm" || m.Type == "vlm", vision: m.Type == "vlm"}
			s.window = m.LoadedContextLength
			if caps := m.Capabilities; caps != nil {
				t := slices.Contains(caps, "tool_use")
				s.tools = &t
			}
			info.models = append(info.models, s)
		}
	}
	return info, nil
}

// modelList is GET /v1/models, with what vLLM, SGLang and llama.cpp add.
type modelList struct {
	Data []struct {
		ID          string `json:"id"`
		OwnedBy     string `json:"owned_by"`
		MaxModelLen int    `json:"max_model_len"` // vLLM, SGLang
		Meta        *struct {
			NCtx      int `json:"n_ctx"`
			NCtxTrain int `json:"n_ctx_train"`
		} `json:"meta"` // llama.cpp
	} `json:"data"`
}

// llamaProps is llama.cpp's GET /props.
type llamaProps struct {
	Settings struct {
		NCtx int `json:"n_ctx"`
	} `json:"default_generation_settings"`
	Modalities struct {
		Vision bool `json:"vision"`
	} `json:"modalities"`
	BuildInfo string `json:"build_info"`
}

// jinja reports whether llama.cpp takes tools: without --jinja its request
// parser refuses any request with tools ("tools param requires --jinja
// flag"), which POST /apply-template shows without running the model. A
// server that cannot say gets the benefit of the doubt.
func (c *Client) jinja(ctx context.Context) bool {
	body := `{"messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"probe","parameters":{"type":"object","properties":{}}}}]}`
	var v any
	err := c.send(ctx, http.MethodPost, c.root()+"/apply-template", body, &v)
	var se *statusError
	return !errors.As(err, &se) || !strings.Contains(se.Msg, "--jinja")
}

// lmStudioList is LM Studio's GET /api/v0/models.
type lmStudioList struct {
	Data []struct {
		ID                  string   `json:"id"`
		Type                string   `json:"type"` // "llm", "vlm", "embeddings"
		State               string   `json:"state"`
		MaxContextLength    int      `json:"max_context_length"`
		LoadedContextLength int      `json:"loaded_context_length"`
		Capabilities        []string `json:"capabilities"`
	} `json:"data"`
}

// Model implements provider.Provider: it finds the model among those the
// server serves (the configured one, else the first chat model, a loaded
// one first) and the window to keep the conversation in: the server's
// (llama.cpp's per slot, LM Studio's loaded context, vLLM's and SGLang's
// max_model_len), else context_length from the config, capped at
// options.num_ctx.
func (c *Client) Model(ctx context.Context, name string) (provider.ModelInfo, error) {
	srv, err := c.discover(ctx)
	if err != nil {
		return provider.ModelInfo{Name: name}, err
	}
	m, err := c.find(srv, name)
	if err != nil {
		return provider.ModelInfo{Name: name}, err
	}
	info := provider.ModelInfo{Name: m.id, ContextLength: m.trained, Notes: slices.Clone(srv.notes)}
	info.Capabilities = []string{"completion"}
	if m.tools == nil || *m.tools {
		info.Capabilities = append(info.Capabilities, "tools")
	}
	if m.vision {
		info.Capabilities = append(info.Capabilities, "vision")
	}
	if !info.Lists("tools") {
		return info, provider.Errorf(provider.ErrNoToolSupport, nil,
			"model %q does not support tool calling (%s says so), which lathe needs: pick one that does with -m", m.id, srv.kind)
	}
	window := m.window
	switch {
	case window > 0 && c.opts.ContextLength > 0:
		window = min(window, c.opts.ContextLength)
	case window == 0 && c.opts.ContextLength > 0:
		window = c.opts.ContextLength
	case window == 0 && srv.kind == KindOllama:
		window = cmp.Or(m.numCtx, ollamaDefaultWindow)
		if m.trained > 0 {
			window = min(window, m.trained)
		}
		if m.numCtx == 0 {
			info.Notes = append(info.Notes, fmt.Sprintf("Ollama has not loaded %s yet: lathe assumes its smallest default "+
				"window, %d tokens; if Ollama runs it with more (OLLAMA_CONTEXT_LENGTH, a large GPU), set context_length", m.id, window))
		}
	case window == 0 && m.trained > 0 && srv.kind == KindLMStudio:
		window = m.trained
		info.Notes = append(info.Notes, fmt.Sprintf("LM Studio has not loaded %s yet: lathe assumes its maximum context, %d tokens; "+
			"if LM Studio loads it with less, set context_length", m.id, m.trained))
	case window == 0:
		return info, provider.Errorf(provider.ErrServer, nil,
			"%s at %s does not say how long its context window is: set context_length in your config to the window it was started with", srv.kind, c.base)
	}
	if info.ContextLength == 0 {
		info.ContextLength = window
	}
	info.ServerWindow, info.Larger = window, srv.kind.larger()
	info.NumCtx = window
	if n := c.opts.Options.NumCtx; n > 0 {
		info.NumCtx = min(window, n)
	}
	return info, nil
}

// find picks the model: name among those served, or the first chat model
// (a loaded one first) for "".
func (c *Client) find(srv serverInfo, name string) (served, error) {
	if name == "" {
		var chat []served
		for _, m := range srv.models {
			if m.chat {
				chat = append(chat, m)
			}
		}
		if len(chat) == 0 {
			return served{}, provider.Errorf(provider.ErrNoModel, nil,
				"%s at %s serves no chat model: load one on the server (lathe pulls models only from Ollama)", srv.kind, c.base)
		}
		slices.SortStableFunc(chat, func(a, b served) int { return boolRank(b.loaded) - boolRank(a.loaded) })
		return chat[0], nil
	}
	for _, m := range srv.models {
		if m.id == name {
			return m, nil
		}
	}
	for _, m := range srv.models {
		if provider.SameModel(m.id, name) { // "qwen3" for Ollama's "qwen3:latest"
			return m, nil
		}
	}
	if srv.kind == KindLlamaCpp && len(srv.models) == 1 {
		// llama-server runs one model and answers to any name.
		m := srv.models[0]
		m.id = name
		return m, nil
	}
	ids := make([]string, len(srv.models))
	for i, m := range srv.models {
		ids[i] = m.id
	}
	err := c.modelNotFound(name, nil).(*provider.Error)
	if len(ids) > 0 {
		err.Msg += " (it serves " + strings.Join(ids, ", ") + ")"
	}
	return served{}, err
}

func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Models implements provider.Provider: the chat models the server serves,
// as GET /v1/models (or LM Studio's richer list) gives them.
func (c *Client) Models(ctx context.Context) ([]provider.ModelSummary, error) {
	srv, err := c.discover(ctx)
	if err != nil {
		return nil, err
	}
	var out []provider.ModelSummary
	for _, m := range srv.models {
		if !m.chat {
			continue
		}
		out = append(out, provider.ModelSummary{Name: m.id, Tools: m.tools == nil || *m.tools})
	}
	return out, nil
}

// Served lists the models the server serves, and whether each is loaded.
func (c *Client) Served(ctx context.Context) (map[string]bool, error) {
	srv, err := c.discover(ctx)
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, m := range srv.models {
		out[m.id] = m.loaded
	}
	return out, nil
}
