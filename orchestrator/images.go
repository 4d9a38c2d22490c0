package orchestrator

import (
	"context"
	"fmt"

	"lathe/orchestrator/provider"
	"lathe/prompts"
)

// Prompt is a request from the user: its text and the images attached to
// it.
type Prompt struct {
	Text   string
	Images []provider.Image
	// Expand, when set, makes the text the model gets of Text (a custom
	// command's file, with its arguments): run runs a command it asks for
	// in the sandbox, approved as the model's calls are, and returns what
	// it printed, worded for the model.
	Expand func(ctx context.Context, run func(ctx context.Context, command string) string) string
	// Allow approves, for this request alone, the calls it covers (a
	// custom command of the user's own, by its allowed-tools).
	Allow Allowance
}

// ImageInfo is an image sent to the model, as people and the JSON output
// see it: never its bytes.
type ImageInfo struct {
	Name   string `json:"name"`
	Bytes  int    `json:"bytes"`
	Width  int    `json:"width"`
	Height int    `json:"height"`
	// Tokens is an estimate of what it takes of the context window.
	Tokens int `json:"tokens"`
}

func infoOf(imgs []provider.Image) []ImageInfo {
	out := make([]ImageInfo, len(imgs))
	for i, img := range imgs {
		out[i] = ImageInfo{Name: img.Name, Bytes: len(img.Data), Width: img.Width, Height: img.Height, Tokens: img.Tokens()}
	}
	return out
}

// ImagesAttached: images go to the model with the next request, attached
// to the prompt (From "prompt") or read by a tool (From "tool").
type ImagesAttached struct {
	Turn   int // 0 for the prompt's
	From   string
	Images []ImageInfo
}

func (ImagesAttached) isEvent() {}

// SuggestedVisionModel is the model a user without any is told to pull
// to attach images.
const SuggestedVisionModel = "qwen2.5vl:7b"

// sees reports whether the session's model can see images. A model that
// lists no capabilities (an old server) gets the benefit of the doubt.
func (s *Session) sees() bool { return s.model.Has("vision") }

// noVision is the error for images attached for a model that cannot see
// them: a server would drop them without a word. It names an installed
// model that can, calls tools and runs locally, or the one to pull.
func (s *Session) noVision(ctx context.Context) error {
	suggest := ""
	if list, err := s.opts.Provider.Models(ctx); err == nil {
		for _, m := range list {
			if m.Vision && m.Tools && m.Remote == "" && m.Broken == "" {
				suggest = m.Name
				break
			}
		}
	}
	if suggest != "" {
		return provider.Errorf(provider.ErrNoVision, nil,
			"model %q cannot see images (it lacks the vision capability): use one that can, such as %s (-m %s, or /model)",
			s.model.Name, suggest, suggest)
	}
	return provider.Errorf(provider.ErrNoVision, nil,
		"model %q cannot see images (it lacks the vision capability), nor can any installed model that calls tools: run \"ollama pull %s\"",
		s.model.Name, SuggestedVisionModel)
}

// attachedNote is the images of msgs as a compaction summary notes them,
// one "[image: NAME]" line each, as the summary leaves them out.
func attachedNote(msgs []provider.Message) string {
	note := ""
	for _, m := range msgs {
		for _, img := range m.Images {
			note += fmt.Sprintf("\n[image: %s]", img.Name)
		}
	}
	return note
}

// attached tells of images going to the model and counts them in the
// result.
func (r *run) attached(turn int, from string, imgs []provider.Image) {
	info := infoOf(imgs)
	r.res.Images = append(r.res.Images, info...)
	r.emit(ImagesAttached{Turn: turn, From: from, Images: info})
}

// show appends the images tools read, for a model that can see them, in
// a note after the results of the turn's calls: the request stays
// append-only, and chat templates that render no images in tool results
// still show them.
func (r *run) show(turn int, imgs []provider.Image) {
	names := make([]string, len(imgs))
	for i, img := range imgs {
		names[i] = img.Name
	}
	r.record(provider.Message{Role: "user", Content: prompts.ImagesShown(names), Images: imgs})
	r.attached(turn, "tool", imgs)
}
