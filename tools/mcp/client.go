package mcp

import (
	"context"
	"fmt"
	"net/url"
	"path/filepath"
	"slices"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// newClient is the client of the server's connection numbered gen: what
// it declares it can do, and its handlers of what the server sends. It
// offers the workspace as its root; it answers elicitation unless the
// server's is declined, and sampling unless denied, so that a server does
// not offer the tools that need what it would be refused.
func (s *server) newClient(gen int) *sdk.Client {
	caps := &sdk.ClientCapabilities{RootsV2: &sdk.RootCapabilities{ListChanged: true}}
	opts := &sdk.ClientOptions{
		Logger:                      sdkLogger(s.m.opts.Log.With().Str("server", s.name).Logger()),
		Capabilities:                caps,
		ToolListChangedHandler:      func(context.Context, *sdk.ToolListChangedRequest) { s.relist(gen) },
		PromptListChangedHandler:    func(context.Context, *sdk.PromptListChangedRequest) { s.relistCatalog(gen) },
		ResourceListChangedHandler:  func(context.Context, *sdk.ResourceListChangedRequest) { s.relistCatalog(gen) },
		ProgressNotificationHandler: func(_ context.Context, r *sdk.ProgressNotificationClientRequest) { s.onProgress(r.Params) },
	}
	if s.cfg.elicitation() != PolicyDecline {
		caps.Elicitation = &sdk.ElicitationCapabilities{Form: &sdk.FormElicitationCapabilities{}, URL: &sdk.URLElicitationCapabilities{}}
		opts.ElicitationHandler = s.elicit
		opts.ElicitationCompleteHandler = func(context.Context, *sdk.ElicitationCompleteNotificationRequest) {
			s.m.tell(s.name, fmt.Sprintf("MCP server %s has what it asked you to open the page for", s.name))
		}
	}
	if s.cfg.sampling() != PolicyDeny {
		caps.Sampling = &sdk.SamplingCapabilities{Tools: &sdk.SamplingToolsCapabilities{}}
		opts.CreateMessageWithToolsHandler = s.sample
	}
	c := sdk.NewClient(&sdk.Implementation{Name: "lathe", Version: s.m.opts.Version}, opts)
	c.AddRoots(rootsOf(s.m.currentRoots())...) // deprecated from protocol 2026-07-28 on, which no server speaks yet
	return c
}

// rootsOf are directories as roots: file URIs, named by their last
// element.
func rootsOf(dirs []string) []*sdk.Root {
	out := make([]*sdk.Root, 0, len(dirs))
	for _, d := range dirs {
		out = append(out, &sdk.Root{URI: fileURI(d), Name: filepath.Base(d)})
	}
	return out
}

// fileURI is a directory's file:// URI.
func fileURI(dir string) string { return (&url.URL{Scheme: "file", Path: dir}).String() }

func (m *Manager) currentRoots() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.roots)
}

// SetRoots makes dirs the roots the servers are told of, the workspace
// first (a session resumed in another directory): each server running is
// told that they changed, and asks for them again when it cares.
func (m *Manager) SetRoots(dirs ...string) {
	m.mu.Lock()
	old := m.roots
	m.roots = slices.Clone(dirs)
	m.mu.Unlock()
	if slices.Equal(old, dirs) {
		return
	}
	var gone []string
	for _, d := range old {
		if !slices.Contains(dirs, d) {
			gone = append(gone, fileURI(d))
		}
	}
	for _, s := range m.servers {
		s.mu.Lock()
		c := s.client
		s.mu.Unlock()
		if c == nil {
			continue
		}
		c.AddRoots(rootsOf(dirs)...)
		c.RemoveRoots(gone...)
	}
}
