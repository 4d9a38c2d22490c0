package agent

import (
	"context"
	"slices"

	"github.com/ollama/ollama/api"
)

// Reset starts a new conversation with the same model and settings: the
// next Run sends only the system prompt and its prompt.
func (s *Session) Reset() {
	s.id, s.title, s.created = newID(), "", false
	s.compaction, s.used, s.usedAt = nil, 0, 0
	if m, ok := s.mode.(BuildMode); ok && m.Plan != nil {
		s.enter(BuildMode{})
	}
	s.modeRec = ModeRecord{Mode: s.mode.Name(), Reason: "new session"}
	if s.model.Name != "" {
		s.messages = s.messages[:1:1]
		s.messages[0].Content, _ = systemPrompt(s.opts.Env, s.mode) // rendered before, so it renders
	}
}

// SetModel switches the session to another model, checked as Prepare
// checks it. The conversation is kept; the next request is a new prompt
// for the new model, so Ollama evaluates it whole once.
func (s *Session) SetModel(ctx context.Context, name string) (ModelInfo, error) {
	cfg := s.opts.Config
	info, err := resolveModel(ctx, s.opts.Client, name, cfg.Options.NumCtx, s.opts.BaseURL)
	if err != nil {
		return info, err
	}
	s.model = info
	s.options = cfg.Options.Map(info.NumCtx)
	if len(s.messages) == 0 {
		system, err := systemPrompt(s.opts.Env, s.mode)
		if err != nil {
			return info, err
		}
		s.messages = []api.Message{{Role: "system", Content: system}}
	}
	s.opts.Log.Debug().Str("model", info.Name).Int("num_ctx", info.NumCtx).Msg("model switched")
	return info, nil
}

// ModelSummary is an installed model as a picker shows it.
type ModelSummary struct {
	Name          string
	ParameterSize string // "8.2B"
	Quantization  string // "Q4_K_M"
	Size          int64  // bytes on disk
	// Tools reports whether the model can call tools (true when the
	// server does not list capabilities).
	Tools bool
}

// ListModels returns the installed models, in the server's order, with
// whether each supports tools (one /api/show per model).
func ListModels(ctx context.Context, c Client, baseURL string) ([]ModelSummary, error) {
	list, err := c.List(ctx)
	if err != nil {
		return nil, classify(err, baseURL, "")
	}
	out := make([]ModelSummary, 0, len(list.Models))
	for _, m := range list.Models {
		show, err := c.Show(ctx, &api.ShowRequest{Model: m.Name})
		if err != nil {
			return nil, classify(err, baseURL, m.Name)
		}
		caps := capabilities(show)
		out = append(out, ModelSummary{
			Name:          m.Name,
			ParameterSize: m.Details.ParameterSize,
			Quantization:  m.Details.QuantizationLevel,
			Size:          m.Size,
			Tools:         caps == nil || slices.Contains(caps, "tools"),
		})
	}
	return out, nil
}

// Puller downloads models; *api.Client is one.
type Puller interface {
	Pull(ctx context.Context, req *api.PullRequest, fn api.PullProgressFunc) error
}

var _ Puller = (*api.Client)(nil)

// PullProgress is one step of a model download, as Ollama reports it.
type PullProgress struct {
	Status    string // "pulling manifest", "pulling 7cd4618c1faf", "success"...
	Digest    string // the layer being downloaded, if any
	Total     int64  // the layer's size in bytes, if known
	Completed int64  // bytes of the layer received so far
}

// PullModel downloads a model, reporting each step to progress.
func PullModel(ctx context.Context, p Puller, name, baseURL string, progress func(PullProgress)) error {
	err := p.Pull(ctx, &api.PullRequest{Model: name}, func(r api.ProgressResponse) error {
		progress(PullProgress{Status: r.Status, Digest: r.Digest, Total: r.Total, Completed: r.Completed})
		return nil
	})
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return failure(ErrServer, err, "pulling %q failed: %v", name, err)
	}
	return nil
}
