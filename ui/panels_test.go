package ui

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"lathe/config"
	"lathe/orchestrator"
	"lathe/orchestrator/provider"
	"lathe/orchestrator/session"
	"lathe/orchestrator/session/sqlite/sqlitetest"
	"lathe/tools"
	"lathe/tools/codeindex"
	"lathe/tools/memory"
)

// TestHelpFits: /help fits a 24-line terminal, shown from its first line
// even below a long transcript (R12).
func TestHelpFits(t *testing.T) {
	m, _ := testModel(t)
	for i := range 30 {
		m.notice(noticeInfo, "", fmt.Sprintf("earlier line %d", i))
	}
	m.input.set("/help")
	press(m, "enter")
	golden(t, m, "help")
	s := screen(m)
	for _, want := range []string{"Commands and keys", "/help", "/quit", "enter", "shift+tab"} {
		if !strings.Contains(s, want) {
			t.Errorf("/help at 80x24 lacks %q:\n%s", want, s)
		}
	}
}

// TestPickersLetTheTranscriptScroll: while /model or /sessions is open,
// PgUp, PgDn, Ctrl+Home and Ctrl+End scroll the transcript (R12).
func TestPickersLetTheTranscriptScroll(t *testing.T) {
	for _, open := range []string{"/model", "/sessions"} {
		t.Run(open, func(t *testing.T) {
			m, _ := testModel(t)
			db := sqlitetest.Open(t)
			m.opts.Catalog = db
			for i := range 60 {
				m.notice(noticeInfo, "", fmt.Sprintf("line %d", i))
			}
			m.input.set(open)
			press(m, "enter")
			if m.panel == nil {
				t.Fatal("no picker")
			}
			press(m, "pgup")
			if m.transcript.follow || strings.Contains(screen(m), "line 59") {
				t.Errorf("pgup did not scroll:\n%s", screen(m))
			}
			press(m, "ctrl+home")
			if !strings.Contains(screen(m), "line 0\n") {
				t.Errorf("ctrl+home did not go to the top:\n%s", screen(m))
			}
			press(m, "ctrl+end")
			if !m.transcript.follow || m.panel == nil {
				t.Errorf("ctrl+end: following %v, picker open %v", m.transcript.follow, m.panel != nil)
			}
		})
	}
}

func TestModelPicker(t *testing.T) {
	m, _ := testModel(t)
	m.input.set("/model")
	if cmd := m.key(keyPress("enter")); cmd == nil || listed[provider.ModelSummary](m) != -1 {
		t.Fatal("/model did not open a loading picker")
	}
	m.Update(modelsMsg{models: []provider.ModelSummary{
		{Name: "qwen3:8b", ParameterSize: "8.2B", Quantization: "Q4_K_M", Size: 5_225_387_923, Tools: true},
		{Name: "gemma3:1b", ParameterSize: "1B", Quantization: "Q4_K_M", Size: 815_319_791},
		{Name: "llama3.1:8b", ParameterSize: "8.0B", Quantization: "Q4_K_M", Size: 4_920_753_328, Tools: true},
		{Name: "gpt-oss:120b-cloud", ParameterSize: "116.8B", Quantization: "MXFP4", Size: 384, Tools: true, Remote: "ollama.com"},
		{Name: "half:7b", Broken: "unable to load model blob"},
	}})
	s := screen(m)
	for _, want := range []string{"› qwen3:8b (current)", "8.2B Q4_K_M", "5.2 GB  tools", "gemma3:1b", "no tools", "llama3.1:8b",
		"116.8B MXFP4      cloud  tools", "half:7b                      unavailable: unable to load model blob"} {
		if !strings.Contains(s, want) {
			t.Errorf("picker lacks %q:\n%s", want, s)
		}
	}
	dim, _, _ := strings.Cut(m.st.dim.Render("x"), "x") // the escape that starts dimmed text
	if raw := m.View().Content; !strings.Contains(raw, dim+"half:7b") {
		t.Errorf("the unavailable model is not dimmed: %q", raw)
	}
	press(m, "down")
	do(m, "enter")
	if m.panel != nil || !strings.Contains(screen(m), "gemma3:1b does not support tool calling") {
		t.Errorf("choosing a model without tools:\n%s", screen(m))
	}
	m.input.set("/model")
	press(m, "enter")
	m.Update(modelsMsg{models: []provider.ModelSummary{{Name: "qwen3:8b", Tools: true}, {Name: "half:7b", Broken: "unable to load model blob"}}})
	if cmd := m.key(keyPress("down")); cmd != nil {
		t.Fatal("down in the picker did something else")
	}
	if cmd := choose(m); cmd != nil || m.panel != nil || !strings.Contains(screen(m), "half:7b is unavailable: unable to load model blob") {
		t.Errorf("choosing an unavailable model:\n%s", screen(m))
	}
	m.machine.usage.tokPerSec = 42
	m.input.set("/model")
	press(m, "enter")
	m.Update(modelsMsg{models: []provider.ModelSummary{{Name: "qwen3:8b", Tools: true}, {Name: "llama3.1:8b", Tools: true}}})
	if cmd := choose(m); cmd != nil || m.panel != nil || !strings.Contains(screen(m), "Already using qwen3:8b.") || m.machine.usage.tokPerSec != 42 {
		t.Errorf("choosing the current model: cmd %v, usage %v\n%s", cmd != nil, m.machine.usage, screen(m))
	}
	press(m, "esc")
	m.input.set("/model")
	press(m, "enter")
	m.Update(modelsMsg{models: []provider.ModelSummary{{Name: "qwen3:8b", Tools: true}, {Name: "llama3.1:8b", Tools: true}}})
	if cmd := m.key(keyPress("down")); cmd != nil {
		t.Fatal("down in the picker did something else")
	}
	if cmd := choose(m); cmd == nil || !strings.Contains(screen(m), "switching to llama3.1:8b") {
		t.Fatalf("enter did not switch:\n%s", screen(m))
	}
	m.Update(modelSwitchedMsg{info: provider.ModelInfo{Name: "llama3.1:8b", NumCtx: 32768}})
	if s := screen(m); !strings.Contains(s, "Now using llama3.1:8b.") || !strings.Contains(s, "llama3.1:8b · build") {
		t.Errorf("after switching:\n%s", s)
	}
}

func TestSessionsPicker(t *testing.T) {
	db := sqlitetest.Open(t)
	m, _ := testModel(t)
	m.opts.Catalog = db
	for i, title := range []string{"older work", "newer work"} {
		id := fmt.Sprintf("%016x", 0xabc0+i)
		if err := db.CreateSession(t.Context(), session.Record{ID: id, Title: title, Dir: m.opts.Dir, Model: "llama3.1:8b"}); err != nil {
			t.Fatal(err)
		}
		msg := session.Message{Seq: 0, Message: provider.Message{Role: "user", Content: title},
			Created: time.Now().Add(time.Duration(i) * time.Minute)}
		if err := db.SaveMessage(t.Context(), id, msg); err != nil {
			t.Fatal(err)
		}
	}
	m.input.set("/sessions")
	cmd := m.key(keyPress("enter"))
	if cmd == nil || listed[session.Summary](m) != -1 {
		t.Fatal("/sessions did not open the picker")
	}
	m.Update(cmd())
	s := screen(m)
	if !strings.Contains(s, "Resume a session") || strings.Index(s, "newer work") > strings.Index(s, "older work") {
		t.Fatalf("the picker does not list the sessions newest first:\n%s", s)
	}
	m.key(keyPress("down"))
	load := choose(m)
	if load == nil {
		t.Fatal("enter did not load the session")
	}
	grant := func() {
		m.approver.grants.Grant(orchestrator.ApprovalRequest{Tool: "edit_file", Kind: tools.KindWrite, Subject: "a.go"})
		m.approver.grants.Grant(orchestrator.ApprovalRequest{Tool: "shell", Kind: tools.KindExec, Subject: "go test ./..."})
	}
	grant()
	_, prepareCmd := m.Update(load())
	if m.session.Snapshot().ID != fmt.Sprintf("%016x", 0xabc0) || m.opts.Engine.Config.Model != "llama3.1:8b" {
		t.Errorf("after choosing: session %s, model %q", m.session.Snapshot().ID, m.opts.Engine.Config.Model)
	}
	// What was allowed for the session left is not allowed in the other.
	if toolNames, commands := m.approver.grants.List(); len(toolNames)+len(commands) != 0 {
		t.Errorf("the resumed session keeps the grants %q %q", toolNames, commands)
	}
	grant()
	m.Update(prepareCmd())
	if s := screen(m); !strings.Contains(s, `Resumed "older work": 2 messages.`) {
		t.Errorf("the chosen session is not shown:\n%s", s)
	}
	// Choosing the session in use only says so (R17).
	items := len(m.transcript.items)
	m.input.set("/sessions")
	m.Update(m.key(keyPress("enter"))())
	for l := m.panel.(*list[session.Summary]); l.items[l.cursor].ID != m.session.Snapshot().ID; {
		m.key(keyPress("down"))
	}
	if cmd := choose(m); cmd != nil || m.panel != nil || len(m.transcript.items) != items ||
		!strings.Contains(statusOf(m), "already in this session") {
		t.Errorf("choosing the current session: cmd %v, picker open %v, status %q\n%s", cmd != nil, m.panel != nil, statusOf(m), screen(m))
	}
	if toolNames, commands := m.approver.grants.List(); len(toolNames) != 1 || len(commands) != 1 {
		t.Errorf("staying in the session lost its grants: %q %q", toolNames, commands)
	}
}

// TestListClosesByMessage: Esc and Enter in a list tell the root, which
// closes it; once either is pressed the list takes no more keys, and the
// choice of a list no longer open is dropped.
func TestListClosesByMessage(t *testing.T) {
	m, _ := testModel(t)
	models := []provider.ModelSummary{{Name: "qwen3:8b", Tools: true}, {Name: "llama3.1:8b", Tools: true}}
	open := func() {
		m.input.set("/model")
		press(m, "enter")
		m.Update(modelsMsg{models: models})
	}
	open()
	press(m, "down")
	choice := m.key(keyPress("enter"))
	if m.panel == nil || choice == nil {
		t.Fatal("enter closed the list before the root heard of it, or chose nothing")
	}
	if cmd := m.key(keyPress("up")); cmd != nil || m.panel.(*list[provider.ModelSummary]).cursor != 1 {
		t.Error("a key after enter moved the list")
	}
	if cmd := m.key(keyPress("esc")); cmd != nil {
		t.Error("esc after enter reached the list")
	}
	msg := choice()
	if _, cmd := m.Update(msg); cmd == nil || m.panel != nil || !strings.Contains(statusOf(m), "switching to llama3.1:8b") {
		t.Fatalf("the choice: switched %v, list open %v, status %q", cmd != nil, m.panel != nil, statusOf(m))
	}
	m.Update(modelSwitchedMsg{info: provider.ModelInfo{Name: "llama3.1:8b", NumCtx: 32768}})

	open()
	closing := m.key(keyPress("esc"))
	if m.panel == nil || closing == nil {
		t.Fatal("esc closed the list before the root heard of it")
	}
	m.Update(closing())
	if m.panel != nil {
		t.Fatal("the list is open after it closed")
	}
	items := len(m.transcript.items)
	if _, cmd := m.Update(msg); cmd != nil || len(m.transcript.items) != items {
		t.Error("the choice of a list no longer open was carried out")
	}
}

// TestToolsListsWhatIsOffered: /tools lists the tools the model is
// offered, not one the session left out (search_code without an
// embedding model), and says which the user allowed for the session, as
// /permissions does (F6).
func TestToolsListsWhatIsOffered(t *testing.T) {
	ws, err := tools.OpenWorkspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	db := sqlitetest.Open(t)
	mem := memory.Tools(ws, memory.Options{Dir: ws.Dir(), Sessions: db, Facts: db, Code: codeindex.NewSearcher(db, nil),
		CodeAvailable: func(context.Context) bool { return false }})
	cfg := config.Defaults()
	cfg.Model = "qwen3:8b"
	m := newModel(t.Context(), Options{
		Engine: orchestrator.Options{Provider: stubProvider{}, Tools: tools.Default(ws, tools.Options{}, mem...),
			Log: zerolog.Nop(), Config: cfg},
		Dir: "/home/dev/proj", NoColor: true, Width: 100, Height: 40,
	})
	prepare(m)
	m.approver.grants.Grant(orchestrator.ApprovalRequest{Tool: "write_file", Kind: tools.KindWrite})
	m.approver.grants.Grant(orchestrator.ApprovalRequest{Tool: "shell", Kind: tools.KindExec, Subject: "go test ./..."})
	m.input.set("/tools")
	press(m, "enter")
	s := strings.Join(strings.Fields(screen(m)), " ")
	for _, want := range []string{"write_file allowed for this session (/permissions)", "edit_file asks first",
		"shell asks first, except 1 command allowed (/permissions)",
		"Left out of this session, as they cannot answer here: search_code"} {
		if !strings.Contains(s, want) {
			t.Errorf("/tools lacks %q:\n%s", want, screen(m))
		}
	}
	if strings.Contains(s, "search_code runs") {
		t.Errorf("/tools lists search_code as offered:\n%s", screen(m))
	}
}

// TestWelcomeSaysWhatTheModelIsGiven: the empty transcript says what to
// do, and that AGENTS.md and the facts remembered go to the model; the
// first item replaces it (F16).
func TestWelcomeSaysWhatTheModelIsGiven(t *testing.T) {
	m, _ := testModel(t)
	m.opts.Engine.Env.Instructions = "Run make check.\n"
	m.Update(factCountMsg{3})
	s := strings.Join(strings.Fields(screen(m)), " ")
	for _, want := range []string{"Ask for a change and press Enter", "/help shows the keys",
		"AGENTS.md is read: its 15 B of instructions go to the model.", "3 facts remembered about this directory go to the model too (/memory)."} {
		if !strings.Contains(s, want) {
			t.Errorf("the welcome lacks %q:\n%s", want, screen(m))
		}
	}
	m.notice(noticeInfo, "", "something")
	m.Update(frameMsg{})
	if strings.Contains(screen(m), "AGENTS.md is read") {
		t.Errorf("the welcome stays after the first item:\n%s", screen(m))
	}
}
