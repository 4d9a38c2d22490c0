package orchestrator

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"lathe/orchestrator/provider"
	"lathe/orchestrator/provider/ollama/ollamatest"
	"lathe/prompts"
	"lathe/tools"
)

var visionModel = ollamatest.Model{Name: "qwen3:8b",
	Capabilities: []string{ollamatest.CapCompletion, ollamatest.CapTools, ollamatest.CapVision}}

func shot() provider.Image {
	return provider.Image{Name: "shot.png", Data: []byte("\x89PNG\r\n\x1a\n the bytes of a screenshot"), Width: 1280, Height: 720}
}

// chatRequests are the recorded chat requests with messages.
func chatRequests(srv *ollamatest.Server) []ollamatest.Request {
	var out []ollamatest.Request
	for _, r := range srv.Requests() {
		if r.Path == "/api/chat" && r.PromptTokens > 0 {
			out = append(out, r)
		}
	}
	return out
}

func TestImagesGoWithThePromptAndStay(t *testing.T) {
	e := newEnv(t, []ollamatest.Option{ollamatest.WithModels(visionModel)})
	e.srv.Script(ollamatest.Reply{Content: "A login page."}, ollamatest.Reply{Content: "Blue."})
	img := shot()
	res, err := e.session.RunPrompt(t.Context(), Prompt{Text: "what is this?", Images: []provider.Image{img}},
		func(ev Event) { e.events = append(e.events, ev) })
	if err != nil || res.StopReason != StopDone {
		t.Fatalf("run: %v, %s", err, res.StopReason)
	}
	if len(res.Images) != 1 || res.Images[0] != (ImageInfo{Name: "shot.png", Bytes: len(img.Data), Width: 1280, Height: 720, Tokens: img.Tokens()}) {
		t.Errorf("result images = %+v", res.Images)
	}
	var told []ImageInfo
	for _, ev := range e.events {
		if a, ok := ev.(ImagesAttached); ok && a.From == "prompt" {
			told = append(told, a.Images...)
		}
	}
	if len(told) != 1 || told[0].Name != "shot.png" {
		t.Errorf("ImagesAttached events told of %+v", told)
	}
	if _, err := e.run(t.Context(), "and its colour?"); err != nil {
		t.Fatal(err)
	}
	reqs := chatRequests(e.srv)
	if len(reqs) != 2 {
		t.Fatalf("%d chat requests", len(reqs))
	}
	for i, r := range reqs {
		if len(r.Images) != 1 || !bytes.Equal(r.Images[0], img.Data) || !r.ImagesSeen {
			t.Errorf("request %d carried images %q (seen %v), want the screenshot byte for byte", i, r.Images, r.ImagesSeen)
		}
	}
	if reqs[1].CachedTokens == 0 {
		t.Error("the second request missed the prompt cache: it must start with the bytes of the first")
	}
}

func TestImagesForAModelThatCannotSeeThem(t *testing.T) {
	blind := ollamatest.DefaultModel()
	tests := []struct {
		name   string
		models []ollamatest.Model
		want   string
	}{
		{"an installed vision model that calls tools is suggested", []ollamatest.Model{blind,
			{Name: "gemma3:4b", Capabilities: []string{ollamatest.CapCompletion, ollamatest.CapVision}},
			{Name: "mistral-small3.2:24b", Capabilities: []string{ollamatest.CapCompletion, ollamatest.CapTools, ollamatest.CapVision}}},
			`model "qwen3:8b" cannot see images (it lacks the vision capability): use one that can, such as mistral-small3.2:24b (-m mistral-small3.2:24b, or /model)`},
		{"none installed: what to pull", []ollamatest.Model{blind,
			{Name: "gemma3:4b", Capabilities: []string{ollamatest.CapCompletion, ollamatest.CapVision}}},
			`model "qwen3:8b" cannot see images (it lacks the vision capability), nor can any installed model that calls tools: run "ollama pull qwen2.5vl:7b"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, []ollamatest.Option{ollamatest.WithModels(tt.models...)})
			res, err := e.session.RunPrompt(t.Context(), Prompt{Text: "what is this?", Images: []provider.Image{shot()}}, func(Event) {})
			if !errors.Is(err, provider.ErrNoVision) || err.Error() != tt.want || res.StopReason != StopError {
				t.Fatalf("got %s, %v\nwant %s", res.StopReason, err, tt.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Error("the error is more than one line")
			}
			if n := len(chatRequests(e.srv)); n != 0 {
				t.Errorf("%d chat requests sent: the images would have been dropped silently", n)
			}
		})
	}
}

func TestCompactionNotesTheImagesItLeavesOut(t *testing.T) {
	e := newEnv(t, []ollamatest.Option{ollamatest.WithModels(visionModel)})
	e.srv.Script(ollamatest.Reply{Content: "A login page. " + strings.Repeat("It has a form with two fields and a button. ", 20)},
		ollamatest.Reply{Content: "It is blue."},
		ollamatest.Reply{Content: "The user showed a login page; it is blue."}, ollamatest.Reply{Content: "ok"})
	if _, err := e.session.RunPrompt(t.Context(), Prompt{Text: "what is this?", Images: []provider.Image{shot()}}, func(Event) {}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.run(t.Context(), "its colour?"); err != nil {
		t.Fatal(err)
	}
	if err := e.session.Compact(t.Context(), func(Event) {}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.run(t.Context(), "thanks"); err != nil {
		t.Fatal(err)
	}
	reqs := chatRequests(e.srv)
	last := reqs[len(reqs)-1]
	if len(last.Images) != 0 {
		t.Errorf("the request after the compaction still carries %d images", len(last.Images))
	}
	summary := e.srv.ChatRequests()
	first := summary[len(summary)-1].Messages[1].Content
	if !strings.Contains(first, "The user showed a login page; it is blue.\n[image: shot.png]") {
		t.Errorf("the summary does not note the image it left out:\n%s", first)
	}
}

// looker is a read tool that reads an image, as read_file does.
func looker(img provider.Image) *probe {
	return &probe{name: "look", kind: tools.KindRead, fn: func(context.Context, map[string]any) (tools.Result, error) {
		return tools.Result{Content: "shot.png is an image", Summary: "image", Image: &img}, nil
	}}
}

func TestAnImageAToolReadIsShownToAVisionModel(t *testing.T) {
	img := shot()
	reader := looker(img)
	e := newEnv(t, []ollamatest.Option{ollamatest.WithModels(visionModel)}, withTools(reader))
	reader.log = e.log
	e.srv.Script(ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{call("look", `{"path":"shot.png"}`)}},
		ollamatest.Reply{Content: "It is a login page."})
	res, err := e.run(t.Context(), "look at shot.png")
	if err != nil || res.StopReason != StopDone {
		t.Fatalf("%v %s", err, res.StopReason)
	}
	reqs := chatRequests(e.srv)
	if len(reqs) != 2 || len(reqs[1].Images) != 1 || !bytes.Equal(reqs[1].Images[0], img.Data) || !reqs[1].ImagesSeen {
		t.Fatalf("the second request did not carry the image read")
	}
	chats := e.srv.ChatRequests()
	first, second := chats[len(chats)-2].Messages, chats[len(chats)-1].Messages
	// Append-only: the second request starts with the first, then the
	// reply, the result, and the note carrying the image.
	if len(second) != len(first)+3 || mustJSON(t, second[:len(first)]) != mustJSON(t, first) {
		t.Fatalf("the second request does not extend the first:\n%s\n%s", mustJSON(t, first), mustJSON(t, second))
	}
	note := second[len(second)-1]
	if note.Role != "user" || len(note.Images) != 1 || note.Content != prompts.ImagesShown([]string{"shot.png"}) ||
		second[len(second)-2].Role != "tool" || second[len(second)-2].Content != "shot.png is an image" {
		t.Errorf("the image's note: %s", mustJSON(t, second[len(first):]))
	}
	if reqs[1].CachedTokens == 0 {
		t.Error("the request with the image missed the prompt cache")
	}
	if len(res.Images) != 1 || res.Images[0].Name != "shot.png" {
		t.Errorf("result images %+v", res.Images)
	}
}

func TestAnImageAToolReadForAModelThatCannotSee(t *testing.T) {
	reader := looker(shot())
	e := newEnv(t, nil, withTools(reader))
	reader.log = e.log
	e.srv.Script(ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{call("look", `{"path":"shot.png"}`)}},
		ollamatest.Reply{Content: "I cannot see it."})
	if _, err := e.run(t.Context(), "look at shot.png"); err != nil {
		t.Fatal(err)
	}
	reqs := chatRequests(e.srv)
	if len(reqs[1].Images) != 0 {
		t.Error("an image went to a model that cannot see it")
	}
	results := lastToolResults(t, e.srv)
	if len(results) != 1 || results[0].Content != prompts.ImageUnseen("shot.png", 1280, 720) {
		t.Errorf("the result says %q", results[0].Content)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
