package ollamatest

import (
	"bytes"
	"testing"

	"github.com/ollama/ollama/api"
)

// TestImagesRecorded checks that the images of a chat request are recorded,
// decoded, and whether the model could see them: a model without vision
// drops them silently, as a real server does.
func TestImagesRecorded(t *testing.T) {
	vision := Model{Name: "qwen2.5vl:7b", Capabilities: []string{CapCompletion, CapTools, CapVision}}
	s := New(t, WithModels(DefaultModel(), vision))
	s.Script(Reply{Content: "a cat"}, Reply{Content: "I see no image"})
	c := newClient(t, s)
	a, b := []byte("\x89PNG first"), []byte("second")
	for _, model := range []string{"qwen2.5vl:7b", "qwen3:8b"} {
		req := &api.ChatRequest{Model: model, Messages: []api.Message{
			{Role: "user", Content: "what is this?", Images: []api.ImageData{a}},
			{Role: "assistant", Content: "which?"},
			{Role: "user", Content: "this", Images: []api.ImageData{b}},
		}}
		if res := chat(t.Context(), c, req); res.err != nil {
			t.Fatal(res.err)
		}
	}
	var reqs []Request
	for _, r := range s.Requests() {
		if r.Path == "/api/chat" {
			reqs = append(reqs, r)
		}
	}
	if len(reqs) != 2 {
		t.Fatalf("%d chat requests recorded", len(reqs))
	}
	for i, wantSeen := range []bool{true, false} {
		r := reqs[i]
		if len(r.Images) != 2 || !bytes.Equal(r.Images[0], a) || !bytes.Equal(r.Images[1], b) {
			t.Errorf("request %d: recorded images %q, want the two sent, in order", i, r.Images)
		}
		if r.ImagesSeen != wantSeen {
			t.Errorf("request %d: ImagesSeen %v, want %v", i, r.ImagesSeen, wantSeen)
		}
	}
}
