package acp

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/url"
	"path"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"lathe/orchestrator"
	"lathe/orchestrator/provider"
	"lathe/orchestrator/provider/images"
)

// Prompt implements sdk.Agent: the prompt runs to its end, its progress
// streamed as session/update notifications. A prompt sent while another
// runs in the session is refused (the protocol has one prompt turn at a
// time); session/cancel, or the client going away, stops the run.
func (a *agent) Prompt(ctx context.Context, p sdk.PromptRequest) (sdk.PromptResponse, error) {
	s, err := a.session(p.SessionId)
	if err != nil {
		return sdk.PromptResponse{}, err
	}
	prompt, err := s.promptOf(p.Prompt)
	if err != nil {
		return sdk.PromptResponse{}, sdk.NewInvalidParams(map[string]any{"error": err.Error()})
	}
	runCtx, err := s.begin(ctx)
	if err != nil {
		return sdk.PromptResponse{}, err
	}
	defer s.finish()
	if reason, ok := s.command(runCtx, prompt.Text); ok {
		return sdk.PromptResponse{StopReason: reason}, nil
	}
	return s.run(runCtx, prompt)
}

// begin makes ctx the run's, to be cancelled by session/cancel; a second
// prompt while one runs is refused.
func (s *acpSession) begin(ctx context.Context) (context.Context, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cancel != nil {
		return nil, sdk.NewInvalidRequest(map[string]any{"error": "a prompt is already running in this session: wait for it, or cancel it"})
	}
	ctx, cancel := context.WithCancel(ctx)
	s.cancel = cancel
	s.seq++
	s.runs.Add(1)
	return ctx, nil
}

// finish ends the run begin started.
func (s *acpSession) finish() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cancel()
	s.cancel = nil
	s.runs.Done()
}

// run runs prompt and maps how it ended to the protocol's stop reason.
func (s *acpSession) run(ctx context.Context, prompt orchestrator.Prompt) (sdk.PromptResponse, error) {
	if m := s.w.Engine.MCP; m != nil {
		m.WaitStarted(ctx)
	}
	st := newStream(ctx, s)
	res, err := s.s.RunPrompt(ctx, prompt, st.event)
	st.close()
	switch {
	case errors.Is(err, provider.ErrNoVision):
		// Refused before anything was sent: its one line is all there is.
		s.update(sdk.UpdateAgentMessageText("lathe: " + err.Error() + "\n"))
		return sdk.PromptResponse{StopReason: sdk.StopReasonRefusal}, nil
	case errors.Is(err, orchestrator.ErrBusy):
		return sdk.PromptResponse{}, requestError(err)
	case ctx.Err() != nil || res.StopReason == orchestrator.StopInterrupted:
		return sdk.PromptResponse{StopReason: sdk.StopReasonCancelled}, nil
	case err != nil:
		return sdk.PromptResponse{}, requestError(err)
	}
	return sdk.PromptResponse{StopReason: s.stopReason(res)}, nil
}

// stopReason is the protocol's for how a run that did not fail ended;
// a limit or a hook is said in a line of its own first.
func (s *acpSession) stopReason(res orchestrator.Result) sdk.StopReason {
	switch {
	case res.StopReason == orchestrator.StopHook:
		s.say(res.Explain(s.w.Limits))
		return sdk.StopReasonRefusal
	case res.StopReason.Limit():
		s.say(res.Explain(s.w.Limits))
		return sdk.StopReasonMaxTurnRequests
	}
	return sdk.StopReasonEndTurn // done, a plan kept for review, empty replies
}

// say sends a line of lathe's own as the agent's message.
func (s *acpSession) say(line string) {
	s.update(sdk.UpdateAgentMessageText("\n\nlathe: " + line + "\n"))
}

// promptOf is the prompt of the client's content blocks: text as it is,
// resource links and embedded resources as references the model can
// follow or read, images attached. Audio is refused (lathe does not
// advertise it).
func (s *acpSession) promptOf(blocks []sdk.ContentBlock) (orchestrator.Prompt, error) {
	var text []string
	var imgs []provider.Image
	lim := images.Limits{MaxEdge: s.w.Engine.Options.Config.Images.MaxEdge, MaxBytes: s.w.Engine.Options.Config.Images.MaxBytes}
	for i, b := range blocks {
		switch {
		case b.Text != nil:
			text = append(text, b.Text.Text)
		case b.ResourceLink != nil:
			text = append(text, s.linkText(b.ResourceLink.Uri, b.ResourceLink.Name))
		case b.Resource != nil:
			t, err := s.resourceText(b.Resource.Resource)
			if err != nil {
				return orchestrator.Prompt{}, err
			}
			text = append(text, t)
		case b.Image != nil:
			data, err := base64.StdEncoding.DecodeString(b.Image.Data)
			if err != nil {
				return orchestrator.Prompt{}, fmt.Errorf("image %d: not base64: %v", i+1, err)
			}
			name := fmt.Sprintf("image-%d", i+1)
			if b.Image.Uri != nil {
				name = path.Base(*b.Image.Uri)
			}
			img, err := images.Decode(name, data, lim)
			if err != nil {
				return orchestrator.Prompt{}, err
			}
			imgs = append(imgs, img)
		case b.Audio != nil:
			return orchestrator.Prompt{}, errors.New("lathe takes no audio")
		}
	}
	joined := strings.TrimSpace(strings.Join(text, "\n\n"))
	if joined == "" && len(imgs) == 0 {
		return orchestrator.Prompt{}, errors.New("the prompt is empty")
	}
	return orchestrator.Prompt{Text: joined, Images: imgs}, nil
}

// linkText is a resource link as the prompt names it: a file of the
// workspace by its path, which the model reads with its tools; another
// URI as it is.
func (s *acpSession) linkText(uri, name string) string {
	if p, ok := s.filePath(uri); ok {
		return "@" + p
	}
	return fmt.Sprintf("[%s](%s)", name, uri)
}

// filePath is the path of a file:// URI, relative to the workspace when
// it is in it.
func (s *acpSession) filePath(uri string) (string, bool) {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" {
		return "", false
	}
	p := u.Path
	if rel, ok := strings.CutPrefix(p, s.dir+"/"); ok {
		p = rel
	}
	return p, true
}

// resourceText is an embedded resource as the prompt carries it: its
// text in a fenced block headed by its name.
func (s *acpSession) resourceText(r sdk.EmbeddedResourceResource) (string, error) {
	if r.TextResourceContents == nil {
		return "", errors.New("lathe takes embedded resources as text only")
	}
	c := r.TextResourceContents
	name := c.Uri
	if p, ok := s.filePath(c.Uri); ok {
		name = p
	}
	fence := "```"
	for strings.Contains(c.Text, fence) {
		fence += "`"
	}
	return fmt.Sprintf("%s:\n%s\n%s\n%s", name, fence, strings.TrimRight(c.Text, "\n"), fence), nil
}
