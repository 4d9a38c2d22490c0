package ollama

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"lathe/orchestrator/provider"
	"lathe/orchestrator/provider/ollama/ollamatest"
)

var modTime = time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)

// TestDefaultChoice: the default model is the newest local model listing
// tools, the same on every call; models the server cannot describe are
// passed over and named, remote ones and ones listing no capabilities
// passed over.
func TestDefaultChoice(t *testing.T) {
	tests := []struct {
		name    string
		models  []ollamatest.Model
		want    string
		skipped []string // starts of the skipped entries
		err     string   // part of the error, when none fits
	}{
		{name: "newest with tools", models: []ollamatest.Model{
			{Name: "older:1b", ModifiedAt: modTime.Add(-time.Hour)},
			{Name: "newest:1b", ModifiedAt: modTime},
			{Name: "notools:1b", ModifiedAt: modTime.Add(time.Hour), Capabilities: []string{"completion"}},
		}, want: "newest:1b"},
		{name: "ties by name", models: []ollamatest.Model{
			{Name: "zeta:1b", ModifiedAt: modTime.Add(300 * time.Millisecond)},
			{Name: "alpha:1b", ModifiedAt: modTime.Add(100 * time.Millisecond)},
			{Name: "mid:1b", ModifiedAt: modTime.Add(200 * time.Millisecond)},
		}, want: "zeta:1b"},
		{name: "same instant", models: []ollamatest.Model{
			{Name: "zeta:1b", ModifiedAt: modTime}, {Name: "alpha:1b", ModifiedAt: modTime}, {Name: "mid:1b", ModifiedAt: modTime},
		}, want: "alpha:1b"},
		{name: "broken show skipped", models: []ollamatest.Model{
			{Name: "corrupt:1b", ModifiedAt: modTime, ShowStatus: 500, ShowError: `tensor "output.weight" offset+size (943008) exceeds file size (761168)`},
			{Name: "good:1b", ModifiedAt: modTime.Add(-time.Minute)},
		}, want: "good:1b", skipped: []string{"corrupt:1b: Ollama answered 500: tensor"}},
		{name: "cloud never picked", models: []ollamatest.Model{
			{Name: "cloudy:latest", ModifiedAt: modTime, RemoteHost: "https://ollama.com:443", RemoteModel: "gpt-oss:120b"},
			{Name: "gpt-oss:20b-cloud", ModifiedAt: modTime, RemoteHost: "https://ollama.com:443", Capabilities: []string{"completion", "tools", "thinking"}},
			{Name: "local:1b", ModifiedAt: modTime.Add(-time.Hour)},
		}, want: "local:1b"},
		{name: "no capabilities listed", models: []ollamatest.Model{
			{Name: "old:7b", ModifiedAt: modTime, LegacyShow: true},
		}, err: "old:7b list no capabilities: name one with -m to try it"},
		{name: "only cloud", models: []ollamatest.Model{
			{Name: "cloudy:latest", RemoteHost: "https://ollama.com:443"},
		}, err: "every installed model is a remote (cloud) model"},
		{name: "only broken", models: []ollamatest.Model{
			{Name: "corrupt:1b", ShowStatus: 500, ShowError: "boom"},
		}, skipped: []string{"corrupt:1b: Ollama answered 500: boom"}, err: "Ollama could not describe corrupt:1b: Ollama answered 500: boom"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := ollamatest.New(t, ollamatest.WithModels(tt.models...))
			c := newClient(t, srv.URL())
			for range 5 { // the server shuffles ties on every call
				info, err := c.Model(t.Context(), "")
				if tt.err != "" {
					if !errors.Is(err, provider.ErrNoModel) || !strings.Contains(err.Error(), tt.err) {
						t.Fatalf("err = %v, want ErrNoModel saying %q", err, tt.err)
					}
				} else if err != nil || info.Name != tt.want {
					t.Fatalf("chose %q (%v), want %q", info.Name, err, tt.want)
				}
				if len(info.Skipped) != len(tt.skipped) {
					t.Fatalf("skipped %q, want %q", info.Skipped, tt.skipped)
				}
				for i, s := range tt.skipped {
					if !strings.HasPrefix(info.Skipped[i], s) {
						t.Errorf("skipped[%d] = %q, want it to start with %q", i, info.Skipped[i], s)
					}
				}
			}
		})
	}
}

// TestNamedModels: a model named explicitly is used even when remote or
// listing no capabilities; the caller chose it.
func TestNamedModels(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.WithModels(
		ollamatest.Model{Name: "gpt-oss:20b-cloud", RemoteHost: "https://ollama.com:443", Capabilities: []string{"completion", "tools"}},
		ollamatest.Model{Name: "old:7b", LegacyShow: true},
	))
	c := newClient(t, srv.URL())
	info, err := c.Model(t.Context(), "gpt-oss:20b-cloud")
	if err != nil || info.Remote != "https://ollama.com:443" {
		t.Errorf("remote model: %+v, %v", info, err)
	}
	if info, err := c.Model(t.Context(), "old:7b"); err != nil || info.Remote != "" {
		t.Errorf("model listing no capabilities: %+v, %v", info, err)
	}
}

// TestModelsListsEveryModel: the picker's list keeps the models the
// server cannot describe, saying why, and marks remote ones.
func TestModelsListsEveryModel(t *testing.T) {
	srv := ollamatest.New(t, ollamatest.WithModels(
		ollamatest.Model{Name: "b:1b", ModifiedAt: modTime},
		ollamatest.Model{Name: "a:1b", ModifiedAt: modTime},
		ollamatest.Model{Name: "corrupt:1b", ModifiedAt: modTime.Add(time.Hour), ShowStatus: 500, ShowError: "tensor exceeds file size"},
		ollamatest.Model{Name: "cloudy:latest", ModifiedAt: modTime.Add(-time.Hour), RemoteHost: "https://ollama.com:443"},
	), ollamatest.WithoutCloud())
	got, err := newClient(t, srv.URL()).Models(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, m := range got {
		names = append(names, m.Name)
	}
	if want := []string{"corrupt:1b", "a:1b", "b:1b", "cloudy:latest"}; !slices.Equal(names, want) {
		t.Fatalf("models %v, want %v", names, want)
	}
	if got[0].Broken != "Ollama answered 500: tensor exceeds file size" || got[0].Tools {
		t.Errorf("broken model: %+v", got[0])
	}
	if c := got[3]; c.Remote != "https://ollama.com:443" || !strings.Contains(c.Broken, "remote model details are unavailable") {
		t.Errorf("cloud model with cloud disabled: %+v", c)
	}
	if !got[1].Tools || got[1].Broken != "" || got[1].Remote != "" {
		t.Errorf("a usable model: %+v", got[1])
	}
}
