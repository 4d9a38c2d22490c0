package mcp

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"lathe/orchestrator/provider"
	"lathe/prompts"
)

// Expanded is a prompt with its MCP references resolved: a
// /server:prompt command replaced by the prompt's text, and the
// resources its @server:uri mentions name appended, their images
// attached.
type Expanded struct {
	Text   string
	Images []provider.Image
}

// ErrBadReference is a /server:prompt command, or an @server:uri
// mention, written wrong: a prompt the server does not offer, arguments
// that do not fit.
var ErrBadReference = errors.New("bad reference")

// badRef wraps err as ErrBadReference, keeping its text.
type badRef struct{ err error }

func (e badRef) Error() string        { return e.err.Error() }
func (e badRef) Is(target error) bool { return target == ErrBadReference }
func (e badRef) Unwrap() error        { return e.err }

// PromptCommand reports whether text is a server's prompt as a slash
// command, /server:prompt ARGS, of a server configured: its server, name
// and arguments.
func (m *Manager) PromptCommand(text string) (server, name, args string, ok bool) {
	first, args, _ := strings.Cut(strings.TrimSpace(text), " ")
	ref, isCmd := strings.CutPrefix(first, "/")
	server, name, found := strings.Cut(ref, ":")
	if !isCmd || !found || name == "" || !m.Has(server) {
		return "", "", "", false
	}
	return server, name, strings.TrimSpace(args), true
}

// Expand resolves the MCP references of text: a /server:prompt command
// (arguments in order, or NAME=VALUE, quoted as a shell would) becomes
// the prompt's text; each @server:uri mention of a server configured has
// the resource's contents appended after the text. What cannot be
// resolved is an error: a prompt or resource that is not there, an
// argument missing.
func (m *Manager) Expand(ctx context.Context, text string) (Expanded, error) {
	out := Expanded{Text: text}
	if server, name, args, ok := m.PromptCommand(text); ok {
		c, err := m.promptText(ctx, server, name, args)
		if err != nil {
			return Expanded{}, err
		}
		out = Expanded{Text: c.Text, Images: c.Images}
	}
	var blocks []string
	for _, ref := range m.mentions(text) {
		c, err := m.ReadResource(ctx, ref.server, ref.uri)
		if err != nil {
			return Expanded{}, err
		}
		blocks = append(blocks, prompts.MCPResource(ref.server, ref.uri, c.Text))
		out.Images = append(out.Images, c.Images...)
	}
	if len(blocks) > 0 {
		out.Text += "\n\n" + strings.Join(blocks, "\n\n")
	}
	return out, nil
}

// promptText gets the prompt with the arguments written after its
// command.
func (m *Manager) promptText(ctx context.Context, server, name, written string) (Content, error) {
	p, ok := m.prompt(server, name)
	if !ok {
		if _, _, err := m.session(server); err != nil {
			return Content{}, err
		}
		var names []string
		for _, q := range m.Prompts() {
			if q.Server == server {
				names = append(names, "/"+server+":"+q.Name)
			}
		}
		if len(names) == 0 {
			return Content{}, badRef{fmt.Errorf("the MCP server %s offers no prompts", server)}
		}
		return Content{}, badRef{fmt.Errorf("the MCP server %s has no prompt %q: it offers %s", server, name, strings.Join(names, ", "))}
	}
	args, err := promptArgs(p, written)
	if err != nil {
		return Content{}, badRef{fmt.Errorf("/%s:%s: %w", server, name, err)}
	}
	return m.GetPrompt(ctx, server, name, args)
}

// promptArgs matches what was written after a prompt's command with its
// arguments: NAME=VALUE words by name, the others in order.
func promptArgs(p PromptInfo, written string) (map[string]string, error) {
	words, err := splitWords(written)
	if err != nil {
		return nil, err
	}
	args := map[string]string{}
	next := 0
	for _, w := range words {
		if k, v, ok := strings.Cut(w, "="); ok && hasArg(p, k) {
			args[k] = v
			continue
		}
		for next < len(p.Args) && args[p.Args[next].Name] != "" {
			next++
		}
		if next == len(p.Args) {
			return nil, fmt.Errorf("%s: more arguments than it takes (%s)", w, argList(p))
		}
		args[p.Args[next].Name] = w
		next++
	}
	for _, a := range p.Args {
		if _, ok := args[a.Name]; !ok && a.Required {
			return nil, fmt.Errorf("argument %s missing: it takes %s", a.Name, argList(p))
		}
	}
	return args, nil
}

func hasArg(p PromptInfo, name string) bool {
	for _, a := range p.Args {
		if a.Name == name {
			return true
		}
	}
	return false
}

// argList names a prompt's arguments in order, the optional ones in
// brackets.
func argList(p PromptInfo) string {
	if len(p.Args) == 0 {
		return "no arguments"
	}
	var names []string
	for _, a := range p.Args {
		if a.Required {
			names = append(names, a.Name)
		} else {
			names = append(names, "["+a.Name+"]")
		}
	}
	return strings.Join(names, " ")
}

// splitWords splits arguments as a shell would: on blanks, but not inside
// single or double quotes.
func splitWords(s string) ([]string, error) {
	var words []string
	var b strings.Builder
	var quote rune
	inWord := false
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			b.WriteRune(r)
		case r == '"' || r == '\'':
			quote, inWord = r, true
		case r == ' ' || r == '\t' || r == '\n':
			if inWord {
				words, inWord = append(words, b.String()), false
				b.Reset()
			}
		default:
			b.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, errors.New("a quote is not closed")
	}
	if inWord {
		words = append(words, b.String())
	}
	return words, nil
}

// mention is an @server:uri mention.
type mention struct{ server, uri string }

// mentionRef is @server:uri, after a blank or at the start: the URI runs
// to the next blank, without the punctuation that ends a sentence.
var mentionRef = regexp.MustCompile(`(?:^|\s)@([A-Za-z0-9][A-Za-z0-9_-]*):(\S+)`)

// mentions are the @server:uri mentions of text that name a server
// configured, each once.
func (m *Manager) mentions(text string) []mention {
	var out []mention
	for _, g := range mentionRef.FindAllStringSubmatch(text, -1) {
		ref := mention{server: g[1], uri: strings.TrimRight(g[2], ".,;:!?)\"'")}
		if m.Has(ref.server) && ref.uri != "" && !containsMention(out, ref) {
			out = append(out, ref)
		}
	}
	return out
}

func containsMention(list []mention, m mention) bool {
	for _, x := range list {
		if x == m {
			return true
		}
	}
	return false
}
