package mcp

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"lathe/orchestrator/provider"
	"lathe/prompts/human"
)

// A server's prompts and resources are the user's, not the model's: its
// prompts are slash commands (/server:prompt), its resources are read
// into a prompt by an @server:uri mention.

// PromptInfo is a prompt a server offers.
type PromptInfo struct {
	Server, Name, Title, Description string
	Args                             []PromptArg
}

// PromptArg is an argument of a prompt.
type PromptArg struct {
	Name, Description string
	Required          bool
}

// ResourceInfo is a resource a server lists.
type ResourceInfo struct {
	Server, URI, Name, Title, Description, MIMEType string
}

// maxListed bounds a server's prompts and resources listed.
const maxListed = 1000

// listCatalog reads the server's prompts and resources, when it offers
// them; what fails is logged, and leaves the list empty.
func (s *server) listCatalog(ctx context.Context, cs *sdk.ClientSession, gen int) {
	caps := cs.InitializeResult().Capabilities
	if caps == nil {
		return
	}
	var prompts []*sdk.Prompt
	var resources []*sdk.Resource
	if caps.Prompts != nil {
		prompts = listAll(ctx, cs.Prompts(ctx, nil), s, "prompts")
	}
	if caps.Resources != nil {
		resources = listAll(ctx, cs.Resources(ctx, nil), s, "resources")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.gen == gen {
		s.prompts, s.resources = prompts, resources
	}
}

// listAll reads a list page after page, at most maxListed items.
func listAll[T any](_ context.Context, seq func(func(T, error) bool), s *server, what string) []T {
	var out []T
	for x, err := range seq {
		if err != nil {
			s.m.opts.Log.Debug().Err(err).Str("server", s.name).Msg("mcp " + what + " not listed")
			return out
		}
		if out = append(out, x); len(out) >= maxListed {
			break
		}
	}
	return out
}

// relistCatalog reads the prompts and resources again after the server
// said they changed.
func (s *server) relistCatalog(gen int) {
	go func() {
		s.mu.Lock()
		cs := s.session
		current := s.gen == gen && s.state == StateReady
		s.mu.Unlock()
		if !current {
			return
		}
		ctx, cancel := context.WithTimeout(s.m.ctx, s.m.opts.StartTimeout)
		defer cancel()
		s.listCatalog(ctx, cs, gen)
	}()
}

// Prompts lists the prompts of the servers ready, by server.
func (m *Manager) Prompts() []PromptInfo {
	var out []PromptInfo
	for _, s := range m.servers {
		s.mu.Lock()
		ps, _ := s.catalog()
		s.mu.Unlock()
		out = append(out, ps...)
	}
	return out
}

// Resources lists the resources of the servers ready, by server.
func (m *Manager) Resources() []ResourceInfo {
	var out []ResourceInfo
	for _, s := range m.servers {
		s.mu.Lock()
		_, rs := s.catalog()
		s.mu.Unlock()
		out = append(out, rs...)
	}
	return out
}

// catalog is the server's prompts and resources; s.mu is held.
func (s *server) catalog() ([]PromptInfo, []ResourceInfo) {
	var ps []PromptInfo
	var rs []ResourceInfo
	for _, p := range s.prompts {
		if p == nil {
			continue
		}
		info := PromptInfo{Server: s.name, Name: p.Name, Title: p.Title, Description: p.Description}
		for _, a := range p.Arguments {
			if a != nil {
				info.Args = append(info.Args, PromptArg{Name: a.Name, Description: a.Description, Required: a.Required})
			}
		}
		ps = append(ps, info)
	}
	for _, r := range s.resources {
		if r != nil {
			rs = append(rs, ResourceInfo{Server: s.name, URI: r.URI, Name: r.Name, Title: r.Title,
				Description: r.Description, MIMEType: r.MIMEType})
		}
	}
	return ps, rs
}

// Command is the prompt as the slash command that runs it, with its
// arguments: "/server:prompt name [style]".
func (p PromptInfo) Command() string {
	c := "/" + p.Server + ":" + p.Name
	if len(p.Args) > 0 {
		c += " " + argList(p)
	}
	return c
}

// Mention is how a prompt names the resource: @server:uri.
func (r ResourceInfo) Mention() string { return "@" + r.Server + ":" + r.URI }

// ErrNotFound is a prompt, or a server, lathe does not know of.
var ErrNotFound = errors.New("not found")

// session is the server's session while it is ready; an error says why
// there is none.
func (m *Manager) session(name string) (*sdk.ClientSession, *server, error) {
	s := m.server(name)
	if s == nil {
		return nil, nil, fmt.Errorf("no MCP server is named %q: %w", name, ErrNotFound)
	}
	s.mu.Lock()
	cs, state, why := s.session, s.state, s.why
	s.mu.Unlock()
	if cs == nil {
		if why != "" {
			state += State(": " + why)
		}
		return nil, nil, fmt.Errorf("the MCP server %s is not ready (%s)", name, state)
	}
	return cs, s, nil
}

// Content is what a prompt or a resource holds, for the model: text, and
// images.
type Content struct {
	Text   string
	Images []provider.Image
}

// GetPrompt asks the server for its prompt name with args, and returns
// its messages as one text (and their images).
func (m *Manager) GetPrompt(ctx context.Context, server, name string, args map[string]string) (Content, error) {
	cs, s, err := m.session(server)
	if err != nil {
		return Content{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, s.cfg.callTimeout())
	defer cancel()
	res, err := cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: name, Arguments: args})
	if err != nil {
		return Content{}, fmt.Errorf("the MCP server %s did not give its prompt %s: %s", server, name, human.Line(err.Error(), 300))
	}
	var out Content
	var parts []string
	for _, msg := range res.Messages {
		if msg == nil || msg.Content == nil {
			continue
		}
		r := result(&sdk.CallToolResult{Content: []sdk.Content{msg.Content}})
		for _, img := range r.Images {
			img.Name = fmt.Sprintf("image %d", len(out.Images)+1)
			out.Images = append(out.Images, img)
		}
		if r.Content != "" {
			parts = append(parts, r.Content)
		}
	}
	out.Text = strings.Join(parts, "\n\n")
	return out, nil
}

// ReadResource reads the server's resource uri: its text, and the images
// among its contents.
func (m *Manager) ReadResource(ctx context.Context, server, uri string) (Content, error) {
	cs, s, err := m.session(server)
	if err != nil {
		return Content{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, s.cfg.callTimeout())
	defer cancel()
	res, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: uri})
	if err != nil {
		return Content{}, fmt.Errorf("the MCP server %s did not give %s: %s", server, uri, human.Line(err.Error(), 300))
	}
	var out Content
	var parts []string
	for _, c := range res.Contents {
		if c == nil {
			continue
		}
		if len(c.Blob) > 0 && strings.HasPrefix(c.MIMEType, "image/") {
			out.Images = append(out.Images, provider.Image{Name: fmt.Sprintf("%s %d", uri, len(out.Images)+1), Data: c.Blob})
			parts = append(parts, fmt.Sprintf("[image: %s, %s]", c.MIMEType, human.Bytes(int64(len(c.Blob)))))
			continue
		}
		if c.Text != "" || len(c.Blob) == 0 {
			parts = append(parts, c.Text)
		} else {
			parts = append(parts, resourceText(c))
		}
	}
	out.Text = strings.Join(parts, "\n")
	return out, nil
}

// Has reports whether a server is named name.
func (m *Manager) Has(name string) bool { return m.server(name) != nil }

// prompt is the server's prompt name, as listed.
func (m *Manager) prompt(server, name string) (PromptInfo, bool) {
	i := slices.IndexFunc(m.Prompts(), func(p PromptInfo) bool { return p.Server == server && p.Name == name })
	if i < 0 {
		return PromptInfo{}, false
	}
	return m.Prompts()[i], true
}
