package engine

import (
	"context"
	"slices"
	"strings"

	"lathe/orchestrator"
	"lathe/orchestrator/provider"
	"lathe/tools/mcp"
)

// sampler answers the MCP servers' sampling requests with the session's
// model server.
type sampler struct {
	provider provider.Provider
	model    string // the configured model; "" lets the server's default be chosen
}

var _ mcp.Sampler = (*sampler)(nil)

// Sample has the model answer q: the model q's hints name among those
// installed, else the one in use. Its thinking is turned off, so that the
// server's token limit is the answer's.
func (s *sampler) Sample(ctx context.Context, q mcp.SamplingRequest) (mcp.SamplingReply, error) {
	info, err := s.provider.Model(ctx, s.choose(ctx, q.Hints))
	if err != nil {
		return mcp.SamplingReply{}, err
	}
	req := &provider.Request{Model: info, MaxTokens: q.MaxTokens}
	if q.System != "" {
		req.Messages = append(req.Messages, provider.Message{Role: "system", Content: q.System})
	}
	req.Messages = append(req.Messages, q.Messages...)
	if q.ToolChoice != "none" {
		req.Tools = q.Tools
	}
	if info.Lists("thinking") {
		off := false
		req.Think = &off
	}
	r, err := orchestrator.Answer(ctx, s.provider, req)
	if err != nil {
		return mcp.SamplingReply{}, err
	}
	out := mcp.SamplingReply{Model: info.Name, Text: r.Text, ToolCalls: r.ToolCalls, StopReason: "endTurn"}
	switch {
	case len(r.ToolCalls) > 0:
		out.StopReason = "toolUse"
	case r.DoneReason == "length":
		out.StopReason = "maxTokens"
	}
	return out, nil
}

// choose names the model to answer with: the first of hints that is part
// of an installed model's name (one the server holds in memory first);
// else the model in use, as the server holds it in memory (the configured
// one first), so that no other is loaded; else the configured one. A
// model in memory that cannot chat (an embedding model) is none.
func (s *sampler) choose(ctx context.Context, hints []string) string {
	models, err := s.provider.Models(ctx)
	if err != nil {
		return s.model
	}
	var loaded []string
	if srv, ok := s.provider.(provider.Server); ok {
		if list, err := srv.Loaded(ctx); err == nil {
			for _, l := range list {
				if slices.ContainsFunc(models, func(m provider.ModelSummary) bool { return m.Name == l.Name && m.Tools }) {
					loaded = append(loaded, l.Name)
				}
			}
		}
	}
	for _, h := range hints {
		h = strings.ToLower(h)
		var match []string
		for _, m := range models {
			if m.Broken == "" && strings.Contains(strings.ToLower(m.Name), h) {
				match = append(match, m.Name)
			}
		}
		slices.SortStableFunc(match, func(a, b string) int {
			return boolRank(slices.Contains(loaded, b)) - boolRank(slices.Contains(loaded, a))
		})
		if len(match) > 0 {
			return match[0]
		}
	}
	switch {
	case s.model != "" && (len(loaded) == 0 || slices.Contains(loaded, s.model)):
		return s.model
	case len(loaded) > 0:
		return loaded[0]
	}
	return s.model
}

func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}
