package ollamatest

import (
	"errors"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/types/model"
)

func TestShow(t *testing.T) {
	s := New(t, WithModels(
		DefaultModel(),
		Model{Name: "llama3.1", ContextLength: 131072, LegacyShow: true},
		Model{Name: "plain"},
	))
	tests := []struct {
		name     string
		body     string
		wantArch string
		wantCtx  float64
		wantCaps []model.Capability // nil: the key must be absent
	}{
		{"current server", `{"model":"qwen3:8b"}`, "qwen3", 40960, []model.Capability{"completion", "tools", "thinking"}},
		{"deprecated name field, case-insensitive, implicit latest", `{"name":"LLAMA3.1"}`, "llama", 131072, nil},
		{"defaults for a zero Model", `{"model":"plain:latest"}`, "plain", DefaultContextLength, []model.Capability{"completion", "tools"}},
	}
	c := newClient(t, s)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := post(t, s, "POST", "/api/show", tt.body)
			if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/json; charset=utf-8" {
				t.Fatalf("status %d, type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
			}
			if has := strings.Contains(body, `"capabilities"`); has != (tt.wantCaps != nil) {
				t.Errorf("capabilities key present %v, want %v", has, tt.wantCaps != nil)
			}
			var req api.ShowRequest
			_ = decodeBody([]byte(tt.body), &req)
			show, err := c.Show(t.Context(), &req)
			if err != nil {
				t.Fatal(err)
			}
			arch, _ := show.ModelInfo["general.architecture"].(string)
			ctx, _ := show.ModelInfo[arch+".context_length"].(float64)
			if arch != tt.wantArch || ctx != tt.wantCtx || !slices.Equal(show.Capabilities, tt.wantCaps) {
				t.Errorf("arch %q, context %v, caps %v; want %q, %v, %v", arch, ctx, show.Capabilities, tt.wantArch, tt.wantCtx, tt.wantCaps)
			}
		})
	}
	_, err := c.Show(t.Context(), &api.ShowRequest{Model: "missing"})
	var se api.StatusError
	if !errors.As(err, &se) || se.StatusCode != 404 || se.ErrorMessage != "model 'missing' not found" {
		t.Errorf("Show(missing): %#v, want 404 model 'missing' not found", err)
	}
}

func TestListVersionHeartbeat(t *testing.T) {
	s := New(t, WithModels(DefaultModel(), Model{Name: "gpt-oss:20b", Capabilities: []string{CapCompletion, CapTools, CapThinking}}))
	c := newClient(t, s)
	if err := c.Heartbeat(t.Context()); err != nil {
		t.Errorf("Heartbeat: %v", err)
	}
	resp, body := post(t, s, "GET", "/", "")
	if body != "Ollama is running" || resp.Header.Get("Content-Type") != "text/plain; charset=utf-8" {
		t.Errorf("GET /: %q (%s)", body, resp.Header.Get("Content-Type"))
	}
	if v, err := c.Version(t.Context()); err != nil || v != "0.17.4" {
		t.Errorf("Version: %q, %v", v, err)
	}
	list, err := c.List(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, m := range list.Models {
		names = append(names, m.Name+"/"+m.Details.Family)
	}
	if strings.Join(names, ",") != "qwen3:8b/qwen3,gpt-oss:20b/gptoss" {
		t.Errorf("tags: %v", names)
	}
	_, body = post(t, s, "GET", "/api/tags", "")
	if !regexp.MustCompile(`"modified_at":"\d{4}-\d\d-\d\dT[\d:.]+-04:00"`).MatchString(body) {
		t.Errorf("tags modified_at is not local time with an offset: %s", body)
	}
}

func TestPs(t *testing.T) {
	s := New(t)
	c := newClient(t, s)
	ps, err := c.ListRunning(t.Context())
	if err != nil || len(ps.Models) != 0 {
		t.Fatalf("ps before any chat: %+v, %v", ps, err)
	}
	load := &api.ChatRequest{Model: "qwen3:8b", Options: map[string]any{"num_ctx": 8192}}
	if res := chat(t.Context(), c, load); res.err != nil || res.final == nil || res.final.DoneReason != "load" {
		t.Fatalf("load: %+v", res)
	}
	ps, err = c.ListRunning(t.Context())
	if err != nil || len(ps.Models) != 1 || ps.Models[0].ContextLength != 8192 || ps.Models[0].Name != "qwen3:8b" {
		t.Fatalf("ps after load: %+v, %v", ps, err)
	}
	unload := &api.ChatRequest{Model: "qwen3:8b", KeepAlive: &api.Duration{}}
	if res := chat(t.Context(), c, unload); res.final == nil || res.final.DoneReason != "unload" {
		t.Fatalf("unload: %+v", res)
	}
	if ps, _ = c.ListRunning(t.Context()); len(ps.Models) != 0 {
		t.Errorf("ps after unload: %+v", ps.Models)
	}
}

func TestPull(t *testing.T) {
	s := New(t, WithPullable(Model{Name: "gemma3:1b", Size: 815_319_791}))
	c := newClient(t, s)
	var lines []api.ProgressResponse
	err := c.Pull(t.Context(), &api.PullRequest{Model: "gemma3:1b"}, func(p api.ProgressResponse) error {
		lines = append(lines, p)
		return nil
	})
	if err != nil {
		t.Fatalf("Pull: %v", err)
	}
	checkPullLines(t, lines)
	s.Script(Reply{Content: "Hello"})
	if res := chat(t.Context(), c, userChat("gemma3:1b", "hi")); res.err != nil || res.content != "Hello" {
		t.Errorf("chat with the pulled model: %v, %q", res.err, res.content)
	}

	err = c.Pull(t.Context(), &api.PullRequest{Model: "nothere"}, func(p api.ProgressResponse) error {
		if p.Status != "pulling manifest" {
			t.Errorf("unexpected progress %+v", p)
		}
		return nil
	})
	if err == nil || err.Error() != "pull model manifest: file does not exist" {
		t.Errorf("Pull(nothere): %v", err)
	}
	resp, body := post(t, s, "POST", "/api/pull", `{"model":"nothere","stream":false}`)
	if resp.StatusCode != 500 || body != `{"error":"pull model manifest: file does not exist"}` {
		t.Errorf("Pull(nothere, stream false): %d %s", resp.StatusCode, body)
	}
}

// checkPullLines checks the shape of TestWithPullModel.httprr: pulling
// manifest, per-layer lines with completed growing to total, verifying,
// writing manifest, success.
func checkPullLines(t *testing.T, lines []api.ProgressResponse) {
	t.Helper()
	if len(lines) < 5 || lines[0].Status != "pulling manifest" {
		t.Fatalf("pull lines %+v", lines)
	}
	var tail []string
	for _, l := range lines[len(lines)-3:] {
		tail = append(tail, l.Status)
	}
	if strings.Join(tail, ",") != "verifying sha256 digest,writing manifest,success" {
		t.Errorf("pull ends with %v", tail)
	}
	completed := map[string]int64{}
	for _, l := range lines[1 : len(lines)-3] {
		if !strings.HasPrefix(l.Digest, "sha256:") || l.Status != "pulling "+l.Digest[7:19] || l.Completed < completed[l.Digest] {
			t.Errorf("bad layer line %+v", l)
		}
		completed[l.Digest] = l.Completed
	}
	if len(completed) < 2 {
		t.Errorf("only %d layers", len(completed))
	}
	for _, l := range lines {
		if l.Digest != "" && completed[l.Digest] != l.Total {
			t.Errorf("layer %s ends at %d of %d", l.Digest, completed[l.Digest], l.Total)
		}
	}
}

// TestRequestsRecorded checks that every request is recorded as sent, the
// rejected and unknown ones included, and that ChatRequests decodes the
// chat bodies.
func TestRequestsRecorded(t *testing.T) {
	s := New(t)
	s.Script(Reply{Content: "ok"})
	c := newClient(t, s)
	if err := c.Heartbeat(t.Context()); err != nil {
		t.Fatal(err)
	}
	post(t, s, "POST", "/api/nothing", `{"x":1}`)
	post(t, s, "POST", "/api/chat", `{"model":"nope","messages":[]}`)
	req := userChat("qwen3:8b", "hi")
	req.Options = map[string]any{"num_ctx": 8192}
	if res := chat(t.Context(), c, req); res.err != nil {
		t.Fatal(res.err)
	}
	reqs := s.Requests()
	var got []string
	for _, r := range reqs {
		got = append(got, r.Method+" "+r.Path)
	}
	if strings.Join(got, ",") != "HEAD /,POST /api/nothing,POST /api/chat,POST /api/chat" {
		t.Fatalf("requests %v", got)
	}
	last := reqs[3]
	if last.Header.Get("Accept") != "application/x-ndjson" || !strings.Contains(string(last.Body), `"num_ctx":8192`) || string(reqs[1].Body) != `{"x":1}` {
		t.Errorf("recorded headers %v, bodies %q and %q", last.Header, reqs[1].Body, last.Body)
	}
	chats := s.ChatRequests()
	if len(chats) != 2 || chats[0].Model != "nope" || chats[1].Messages[0].Content != "hi" {
		t.Errorf("ChatRequests %+v", chats)
	}
	reqs[3].Body[0] = 'X' // a copy: the server's record must not change
	if s.Requests()[3].Body[0] != '{' {
		t.Errorf("Requests returned the server's own slice")
	}
}

// TestTagsOrder checks /api/tags against ListHandler: newest first by
// modified_at in whole seconds, so models modified in the same second come
// in an order that changes from call to call, not by their nanoseconds.
func TestTagsOrder(t *testing.T) {
	at := func(sec, nsec int) time.Time { return time.Date(2025, 6, 2, 10, 0, sec, nsec, time.UTC) }
	s := New(t, WithModels(
		Model{Name: "old", ModifiedAt: at(0, 0).Add(-time.Hour)},
		Model{Name: "tie-a", ModifiedAt: at(5, 100)},
		Model{Name: "tie-b", ModifiedAt: at(5, 900_000_000)},
		Model{Name: "tie-c", ModifiedAt: at(5, 500)},
		Model{Name: "newest", ModifiedAt: at(6, 0)},
	))
	c := newClient(t, s)
	orders := map[string]int{}
	firstTie := map[string]bool{}
	for range 20 {
		list, err := c.List(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, m := range list.Models {
			names = append(names, strings.TrimSuffix(m.Name, ":latest"))
		}
		if len(names) != 5 || names[0] != "newest" || names[4] != "old" {
			t.Fatalf("tags order %v: want newest first and old last", names)
		}
		orders[strings.Join(names, ",")]++
		firstTie[names[1]] = true
	}
	if len(orders) < 3 || len(firstTie) < 2 {
		t.Errorf("20 calls gave %d orders (%v), with %v first among the ties: want the same-second models shuffled per call", len(orders), orders, firstTie)
	}
	list, _ := c.List(t.Context())
	for _, m := range list.Models {
		if m.Name == "tie-b:latest" && (!m.ModifiedAt.Equal(at(5, 900_000_000)) || m.ModifiedAt.Format("-07:00") != "-04:00") {
			t.Errorf("tie-b modified_at %v: want the configured instant in the server's local time", m.ModifiedAt)
		}
	}
}

// TestShowFailsForOneModel checks a model whose /api/show fails: the error
// as a real server sends it, the model still listed, the others unaffected,
// and chat failing too only when the model cannot load.
func TestShowFailsForOneModel(t *testing.T) {
	const corrupt = `tensor "output.weight" offset+size (943008) exceeds file size (761168)`
	const noCloud = "ollama cloud is disabled: remote model details are unavailable"
	s := New(t, WithModels(
		Model{Name: "broken", ShowStatus: 500, ShowError: corrupt, LoadError: corrupt},
		Model{Name: "cloudy", ShowStatus: 403, ShowError: noCloud},
		DefaultModel(),
	))
	c := newClient(t, s)
	list, err := c.List(t.Context())
	if err != nil || len(list.Models) != 3 {
		t.Fatalf("List: %d models, %v; want all 3", len(list.Models), err)
	}
	tests := []struct {
		model, wantBody string
		wantStatus      int
	}{
		{"broken", `{"error":"tensor \"output.weight\" offset+size (943008) exceeds file size (761168)"}`, 500},
		{"cloudy", `{"error":"ollama cloud is disabled: remote model details are unavailable"}`, 403},
	}
	for _, tt := range tests {
		resp, body := post(t, s, "POST", "/api/show", `{"model":"`+tt.model+`"}`)
		if resp.StatusCode != tt.wantStatus || body != tt.wantBody || resp.Header.Get("Content-Type") != "application/json; charset=utf-8" {
			t.Errorf("show %s: %d %q %s", tt.model, resp.StatusCode, resp.Header.Get("Content-Type"), body)
		}
	}
	_, err = c.Show(t.Context(), &api.ShowRequest{Model: "broken"})
	var se api.StatusError
	if !errors.As(err, &se) || se.StatusCode != 500 || se.ErrorMessage != corrupt {
		t.Errorf("Show(broken): %#v", err)
	}
	if _, err := c.Show(t.Context(), &api.ShowRequest{Model: "qwen3:8b"}); err != nil {
		t.Errorf("Show(qwen3:8b): %v", err)
	}

	s.Script(Reply{Content: "from the cloud stub"})
	res := chat(t.Context(), c, userChat("broken", "hi"))
	checkErr(t, res.err, 500, corrupt)
	load := chat(t.Context(), c, &api.ChatRequest{Model: "broken"})
	checkErr(t, load.err, 500, corrupt)
	if res := chat(t.Context(), c, userChat("cloudy", "hi")); res.err != nil || res.content != "from the cloud stub" {
		t.Errorf("chat with a model whose show fails: %v, %q", res.err, res.content)
	}
}

func TestShowFailureNeedsAStatus(t *testing.T) {
	for _, m := range []Model{{Name: "a", ShowError: "x"}, {Name: "b", ShowStatus: 200}} {
		ft := newFake(t)
		New(ft, WithModels(m))
		if errs := ft.errors(); len(errs) != 1 || !strings.Contains(errs[0], "ShowStatus") {
			t.Errorf("New with %+v: errors %q", m, errs)
		}
	}
}

func TestPsSizes(t *testing.T) {
	s := New(t, WithModels(
		Model{Name: "gpu", Size: 5_000_000_000},
		Model{Name: "spill", Size: 5_000_000_000, LoadedSize: 6_400_000_000, LoadedVRAM: 4_000_000_000},
		Model{Name: "cpu", Size: 5_000_000_000, LoadedSize: 6_400_000_000, LoadedVRAM: -1},
	))
	c := newClient(t, s)
	for _, name := range []string{"gpu", "spill", "cpu"} {
		if res := chat(t.Context(), c, &api.ChatRequest{Model: name}); res.err != nil {
			t.Fatal(res.err)
		}
	}
	ps, err := c.ListRunning(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][2]int64{}
	for _, m := range ps.Models {
		got[m.Name] = [2]int64{m.Size, m.SizeVRAM}
	}
	want := map[string][2]int64{
		"gpu:latest":   {5_000_000_000, 5_000_000_000},
		"spill:latest": {6_400_000_000, 4_000_000_000},
		"cpu:latest":   {6_400_000_000, 0},
	}
	for name, w := range want {
		if got[name] != w {
			t.Errorf("%s: size, size_vram %v, want %v", name, got[name], w)
		}
	}
	_, body := post(t, s, "GET", "/api/ps", "")
	if !strings.Contains(body, `"size_vram":0,`) {
		t.Errorf("a CPU-only model must send size_vram 0, not leave it out: %s", body)
	}
}

// TestKeepAlive checks cold and warm loads against keep_alive on the
// simulated clock: a model unloads when its keep_alive runs out after a
// reply (at once for keep_alive 0), and then loads cold with an empty
// prompt cache.
func TestKeepAlive(t *testing.T) {
	const cold = 4_200 * time.Millisecond
	tests := []struct {
		name      string
		keepAlive *api.Duration
		wait      time.Duration
		wantCold  bool
	}{
		{"default 5m, 4m later", nil, 4 * time.Minute, false},
		{"default 5m, 6m later", nil, 6 * time.Minute, true},
		{"30m, 29m later", &api.Duration{Duration: 30 * time.Minute}, 29 * time.Minute, false},
		{"0 unloads after the reply", &api.Duration{}, 0, true},
		{"negative never unloads", &api.Duration{Duration: -1}, 1000 * time.Hour, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := New(t, WithModels(Model{Name: "m", LoadDuration: cold}))
			s.Script(Reply{Content: "one"}, Reply{Content: "two"})
			c := newClient(t, s)
			req := userChat("m", strings.Repeat("Long enough to cache. ", 20))
			req.KeepAlive = tt.keepAlive
			first := chat(t.Context(), c, req)
			s.Advance(tt.wait)
			ps, _ := c.ListRunning(t.Context())
			second := chat(t.Context(), c, req)
			if first.final == nil || second.final == nil {
				t.Fatalf("errors %v, %v", first.err, second.err)
			}
			if first.final.LoadDuration != cold {
				t.Errorf("first load_duration %v, want the model's cold load %v", first.final.LoadDuration, cold)
			}
			gotCold := second.final.LoadDuration == cold
			if gotCold != tt.wantCold || (len(ps.Models) == 0) != tt.wantCold || (s.Requests()[2].CachedTokens == 0) != tt.wantCold {
				t.Errorf("second load_duration %v, %d models in ps between, %d tokens cached; want cold %v",
					second.final.LoadDuration, len(ps.Models), s.Requests()[2].CachedTokens, tt.wantCold)
			}
		})
	}
}
