package orchestrator

import (
	"strings"

	"lathe/orchestrator/provider"
	"lathe/prompts"
)

// ContextUse is how the context window is used, part by part, in tokens.
// The parts are estimated at the density the server's counts show; Total
// is the server's own count when Counted, else their sum.
type ContextUse struct {
	NumCtx int
	// System is the mode's prompt, Instructions the project's AGENTS.md
	// within it, Skills the list of skills within it, Tools the built-in
	// tools' schemas, MCP the MCP servers' (or the two tools that stand
	// for them).
	System, Instructions, Skills, Tools, MCP int
	// Summary stands for the turns compacted; History is the prompts and
	// replies after it, ToolResults what the tools returned.
	Summary, History, ToolResults int
	Total                         int
	Counted                       bool
}

// Free is what is left of the window.
func (c ContextUse) Free() int { return max(c.NumCtx-c.Total, 0) }

// ContextPart is one part of the window, for a table.
type ContextPart struct {
	Name      string
	Tokens    int
	Estimated bool
}

// Parts are the parts of the window in the order a table lists them, the
// empty optional ones left out, then what is in use and what is free.
func (c ContextUse) Parts() []ContextPart {
	out := []ContextPart{{"system prompt", c.System, true}}
	if c.Instructions > 0 {
		out = append(out, ContextPart{"AGENTS.md", c.Instructions, true})
	}
	if c.Skills > 0 {
		out = append(out, ContextPart{"skills", c.Skills, true})
	}
	out = append(out, ContextPart{"tool schemas", c.Tools, true})
	if c.MCP > 0 {
		out = append(out, ContextPart{"MCP tool schemas", c.MCP, true})
	}
	if c.Summary > 0 {
		out = append(out, ContextPart{"summary", c.Summary, true})
	}
	return append(out, ContextPart{"prompts and replies", c.History, true}, ContextPart{"tool results", c.ToolResults, true},
		ContextPart{"in use", c.Total, !c.Counted}, ContextPart{"free", c.Free(), !c.Counted})
}

// Context works out how the context window is used now; zero until the
// session is prepared.
func (s *Session) Context() ContextUse {
	if err := s.ops.begin(opContext); err != nil {
		return ContextUse{}
	}
	defer s.end()
	if s.model.Name == "" || len(s.messages) == 0 {
		return ContextUse{}
	}
	view := s.win.View(s.messages)
	mcp := s.extraSpecs()
	u := ContextUse{NumCtx: s.model.NumCtx, System: s.win.Estimate(view[:1]),
		Tools: s.win.Estimate(nil) + tokensOf(s, s.win.Specs-mcp), MCP: tokensOf(s, mcp)}
	if inst := strings.TrimSpace(s.opts.Env.Instructions); inst != "" {
		u.Instructions = min(tokensOf(s, len(inst)), u.System)
		u.System -= u.Instructions
	}
	if list := prompts.Skills(s.opts.Env.Skills); list != "" {
		u.Skills = min(tokensOf(s, len(list)), u.System)
		u.System -= u.Skills
	}
	rest := view[1:]
	if s.win.Compaction != nil && len(rest) > 0 {
		u.Summary, rest = s.win.Estimate(rest[:1]), rest[1:]
	}
	for _, m := range rest {
		n := s.win.Estimate([]provider.Message{m})
		if m.Role == "tool" {
			u.ToolResults += n
		} else {
			u.History += n
		}
	}
	u.Total = u.System + u.Instructions + u.Skills + u.Tools + u.MCP + u.Summary + u.History + u.ToolResults
	if used := s.win.Next(s.messages); s.win.Used() > 0 {
		u.Total, u.Counted = used, true
	}
	return u
}

// tokensOf estimates the tokens of n bytes at the window's density.
func tokensOf(s *Session, n int) int {
	return int(float64(n)/s.win.BytesPerToken() + 0.5)
}
