package mcp

import (
	"context"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"lathe/prompts/human"
)

// Policies of a server's requests of the user (Server.Elicitation,
// Server.Sampling): ask the user, or answer at once.
const (
	PolicyAsk     = "ask"
	PolicyAccept  = "accept"  // elicitation: with the form's defaults
	PolicyDecline = "decline" // elicitation
	PolicyAllow   = "allow"   // sampling
	PolicyDeny    = "deny"    // sampling
)

// elicit answers a server's elicitation/create: as the server's policy
// says, else as the user does, through the Asker; where nobody can be
// asked, declined, and told.
func (s *server) elicit(ctx context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
	p := req.Params
	q := Elicitation{Server: s.name, Message: p.Message, URL: p.URL, ID: p.ElicitationID}
	if p.Mode == "url" && q.URL == "" {
		return nil, fmt.Errorf("a URL elicitation without a URL")
	}
	if q.URL == "" {
		fields, err := formFields(p.RequestedSchema)
		if err != nil {
			return nil, err
		}
		q.Fields = fields
	}
	ctx, stop := s.withinCalls(ctx)
	defer stop()
	ans := s.answerElicitation(ctx, q)
	return &sdk.ElicitResult{Action: ans.Action, Content: ans.Content}, nil
}

// answerElicitation is the answer q gets.
func (s *server) answerElicitation(ctx context.Context, q Elicitation) ElicitAnswer {
	message := human.Line(strings.TrimRight(strings.TrimSpace(q.Message), ":"), 100)
	what := fmt.Sprintf("asked for input (%s)", message)
	if q.URL != "" {
		what = fmt.Sprintf("asked you to open %s (%s)", human.Visible(q.URL), message)
	}
	switch policy := s.cfg.elicitation(); {
	case policy == PolicyDecline:
		s.m.tell(s.name, fmt.Sprintf("MCP server %s %s: declined (mcp.elicitation = \"decline\")", s.name, what))
		return ElicitAnswer{Action: ActionDecline}
	case policy == PolicyAccept && q.URL == "":
		values, ok := q.Defaults()
		if !ok {
			s.m.tell(s.name, fmt.Sprintf("MCP server %s %s: declined: a field it requires has no default to accept", s.name, what))
			return ElicitAnswer{Action: ActionDecline}
		}
		s.m.tell(s.name, fmt.Sprintf("MCP server %s %s: accepted with the form's defaults (mcp.elicitation = \"accept\")", s.name, what))
		return ElicitAnswer{Action: ActionAccept, Content: values}
	}
	asker := s.m.asker()
	if asker == nil {
		s.m.tell(s.name, fmt.Sprintf("MCP server %s %s: declined: nobody can answer in a run like this one "+
			"(mcp.elicitation = \"accept\" accepts a form with its defaults)", s.name, what))
		return ElicitAnswer{Action: ActionDecline}
	}
	ans := asker.Elicit(ctx, q)
	switch {
	case ctx.Err() != nil:
		return ElicitAnswer{Action: ActionCancel}
	case ans.Action == ActionAccept && q.URL == "":
		// What the user gave, checked against the form once more: an
		// answer that does not fit is the user's cancel, not the server's
		// error.
		for _, f := range q.Fields {
			v, ok := ans.Content[f.Name]
			if _, err := f.Check(v); ok && err != nil || !ok && f.Required {
				return ElicitAnswer{Action: ActionCancel}
			}
		}
		return ans
	case ans.Action == ActionAccept:
		return ElicitAnswer{Action: ActionAccept}
	case ans.Action == ActionDecline:
		return ElicitAnswer{Action: ActionDecline}
	}
	return ElicitAnswer{Action: ActionCancel}
}
