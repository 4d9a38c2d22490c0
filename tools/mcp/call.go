package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"lathe/prompts"
	"lathe/prompts/human"
	"lathe/tools"
	"lathe/tools/mcp/oauth"
)

// call calls one of the server's tools within the server's time limit;
// the progress the server tells goes to caller. Everything that goes
// wrong is a result for the model: a server that is not running, a call
// that took too long (cancelled on the server), one the server refused;
// ctx's end is the caller's to report.
func (s *server) call(ctx context.Context, caller tools.Caller, tool string, args json.RawMessage) (tools.Result, error) {
	s.mu.Lock()
	cs, state, why, gen := s.session, s.state, s.why, s.gen
	s.calls++
	token := "lathe-" + strconv.Itoa(s.calls)
	s.progress[token] = caller.Report
	if s.inflight++; s.inflight == 1 {
		s.idle = make(chan struct{})
	}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.progress, token)
		if s.inflight--; s.inflight == 0 {
			close(s.idle)
		}
		s.mu.Unlock()
	}()
	if cs == nil {
		switch state {
		case StateStarting:
			why = "it is starting again"
		case StateOff:
			why = "it was turned off"
		}
		return tools.Errorf("server not running", prompts.MCPServerDown(s.name, why)), nil
	}
	limit := s.cfg.callTimeout()
	cctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	params := &sdk.CallToolParams{Name: tool, Arguments: args}
	params.SetProgressToken(token)
	res, err := cs.CallTool(cctx, params)
	var login *oauth.LoginError
	switch {
	case ctx.Err() != nil:
		// Cancelled: the SDK told the server so.
		return tools.Result{Content: "cancelled on the server", IsError: true, Summary: "cancelled"}, nil
	case errors.Is(cctx.Err(), context.DeadlineExceeded):
		go s.checkAlive(gen)
		return tools.Errorf("timed out after "+human.Duration(limit).String(), prompts.MCPTimeout(limit)), nil
	case errors.Is(err, sdk.ErrConnectionClosed), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return tools.Errorf("server stopped", prompts.MCPServerDown(s.name, "it stopped during the call")), nil
	case errors.As(err, &login):
		s.m.notify(Notice{Server: s.name, Text: fmt.Sprintf("MCP server %s refused a call: %s", s.name, login), Failed: true})
		return tools.Errorf("needs authorization", prompts.MCPFailed(s.name, login.Error())), nil
	case urlsRequired(err) != nil:
		return s.openFirst(cctx, urlsRequired(err)), nil
	case err != nil:
		return tools.Errorf("failed", prompts.MCPFailed(s.name, human.Line(err.Error(), 300))), nil
	case res == nil:
		return tools.Errorf("failed", prompts.MCPFailed(s.name, "it sent no result")), nil
	}
	return result(res), nil
}

// pingTimeout bounds the ping that tells a slow call from a server that
// stopped answering.
const pingTimeout = 5 * time.Second

// checkAlive pings a server after a call timed out: one that does not
// answer is taken for crashed.
func (s *server) checkAlive(gen int) {
	s.mu.Lock()
	cs := s.session
	current := s.gen == gen && cs != nil
	s.mu.Unlock()
	if !current {
		return
	}
	ctx, cancel := context.WithTimeout(s.m.ctx, pingTimeout)
	defer cancel()
	if err := cs.Ping(ctx, nil); err != nil && s.m.ctx.Err() == nil {
		s.crashed(gen, "it stopped answering")
	}
}

// onProgress passes a progress notification on to the call it is about.
func (s *server) onProgress(p *sdk.ProgressNotificationParams) {
	if p == nil {
		return
	}
	token := fmt.Sprint(p.ProgressToken)
	s.mu.Lock()
	fn := s.progress[token]
	s.mu.Unlock()
	if fn != nil {
		fn(progressText(p))
	}
}

// progressText is a progress notification for a card: its message, and
// how far: "3/10", or a percentage when the total is 1 or 100.
func progressText(p *sdk.ProgressNotificationParams) string {
	var how string
	switch {
	case p.Total == 1 && p.Progress <= 1:
		how = fmt.Sprintf("%.0f%%", p.Progress*100)
	case p.Total == 100:
		how = fmt.Sprintf("%.0f%%", p.Progress)
	case p.Total > 0:
		how = fmt.Sprintf("%g/%g", p.Progress, p.Total)
	case p.Progress > 0:
		how = fmt.Sprintf("%g", p.Progress)
	}
	msg := human.Line(strings.TrimSpace(p.Message), 80)
	switch {
	case msg == "":
		return how
	case how == "":
		return msg
	}
	return msg + " · " + how
}

// withinCalls is ctx, ended too once the calls of the server under way
// now have all ended: what the server asks of the user during a call is
// for that call, and a question whose call was cancelled is withdrawn
// even when the server does not say so (over HTTP, its cancellation may
// have no stream left to go by).
func (s *server) withinCalls(ctx context.Context) (context.Context, context.CancelFunc) {
	s.mu.Lock()
	idle := s.idle
	busy := s.inflight > 0
	s.mu.Unlock()
	ctx, cancel := context.WithCancel(ctx)
	if busy {
		go func() {
			select {
			case <-idle:
				cancel()
			case <-ctx.Done():
			}
		}()
	}
	return ctx, cancel
}

// urlsRequired are the pages the server needs the user to open before it
// can run the call, when err is its URLElicitationRequired error (-32042);
// nil otherwise.
func urlsRequired(err error) []*sdk.ElicitParams {
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != sdk.CodeURLElicitationRequired || rpcErr.Data == nil {
		return nil
	}
	var data struct {
		Elicitations []*sdk.ElicitParams `json:"elicitations"`
	}
	if json.Unmarshal(rpcErr.Data, &data) != nil {
		return nil
	}
	var out []*sdk.ElicitParams
	for _, e := range data.Elicitations {
		if e != nil && e.URL != "" {
			out = append(out, e)
		}
	}
	return out
}

// openFirst puts to the user the pages the server needs opened before the
// call can run, and tells the model to call again once they are: the
// server says when (notifications/elicitation/complete), which may be
// never, so nothing waits for it here.
func (s *server) openFirst(ctx context.Context, pages []*sdk.ElicitParams) tools.Result {
	var asked []prompts.MCPPage
	for _, p := range pages {
		ans := s.answerElicitation(ctx, Elicitation{Server: s.name, Message: p.Message, URL: p.URL, ID: p.ElicitationID})
		asked = append(asked, prompts.MCPPage{URL: p.URL, Opened: ans.Action == ActionAccept})
	}
	return tools.Errorf("needs a page opened first", prompts.MCPOpenFirst(s.name, asked))
}
