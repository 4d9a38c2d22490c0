package ui

import (
	"context"
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"lathe/orchestrator"
	"lathe/orchestrator/plan"
	"lathe/prompts/human"
	"lathe/tools"
)

// TestApprovalDialogScrollsThroughItAll checks that a long change or
// command shows as many of its lines as fit, says where the view is, and
// scrolls through every line before the user decides.
func TestApprovalDialogScrollsThroughItAll(t *testing.T) {
	var diff, command strings.Builder
	diff.WriteString("--- parse.go\n+++ parse.go\n@@ -1,150 +1,150 @@\n")
	for i := range 150 {
		fmt.Fprintf(&diff, "-\told%d()\n+\tnew%d()\n", i, i)
		fmt.Fprintf(&command, "echo %d\n", i)
	}
	st, keys := newTheme(true, true), newKeyMap()
	for _, tc := range []struct {
		name  string
		req   orchestrator.ApprovalRequest
		lines int // of the body
		mark  string
	}{
		{"diff", orchestrator.ApprovalRequest{Tool: "write_file", Kind: tools.KindWrite, Subject: "parse.go", Preview: diff.String()}, 301, "    "},
		{"command", orchestrator.ApprovalRequest{Tool: "shell", Kind: tools.KindExec, Subject: strings.TrimSuffix(command.String(), "\n")}, 150, "  $ "},
	} {
		for _, height := range []int{6, 12, 40} {
			d := newApprovalDialog(approvalAsk{req: tc.req}, "/home/dev/proj", &st, keys)
			seen := map[string]bool{}
			for range 400 {
				view := strings.Split(dialogView(d, 80, height), "\n")
				if len(view) > height {
					t.Fatalf("%s in %d lines: %d lines", tc.name, height, len(view))
				}
				var first, last, total int
				for _, l := range view {
					switch {
					case strings.Contains(l, "· ↑↓ pgup pgdn home end scroll"):
						fmt.Sscanf(strings.TrimSpace(l), "lines %d–%d of %d", &first, &last, &total)
					case strings.HasPrefix(l, tc.mark):
						seen[l] = true
					}
				}
				if total != tc.lines {
					t.Fatalf("%s in %d lines: the view says %d lines in all, want %d:\n%s", tc.name, height, total, tc.lines, strings.Join(view, "\n"))
				}
				if last == total {
					break
				}
				d.Update(keyPress("pgdown"))
			}
			if len(seen) != tc.lines {
				t.Errorf("%s in %d lines: scrolling showed %d distinct lines, want all %d", tc.name, height, len(seen), tc.lines)
			}
		}
	}
}

// TestApprovalDialogEscapesControlCharacters: a carriage return or an
// escape sequence in a command cannot hide what will run (F5).
func TestApprovalDialogEscapesControlCharacters(t *testing.T) {
	evil := "go test ./...;touch pwned #\rgo test ./...                 "
	st, keys := newTheme(true, true), newKeyMap()
	for _, req := range []orchestrator.ApprovalRequest{
		{Tool: "shell", Kind: tools.KindExec, Subject: evil},
		{Tool: "shell", Kind: tools.KindExec, Subject: "echo harmless\x1b[8m; rm -rf ~"},
		{Tool: "write_file", Kind: tools.KindWrite, Subject: "src/evil.sh\rREADME.md   "},
	} {
		d := newApprovalDialog(approvalAsk{req: req}, "/home/dev/proj", &st, keys)
		d.SetSize(80, 20)
		view := d.View()
		if strings.ContainsAny(view, "\r") || strings.Contains(ansi.Strip(view), "\x1b") {
			t.Errorf("the dialog holds a raw control character:\n%q", view)
		}
		if !strings.Contains(view, human.Visible(req.Subject)) && !strings.Contains(view, `\r`) && !strings.Contains(view, `\x1b`) {
			t.Errorf("the dialog does not show the escaped subject:\n%s", view)
		}
	}
}

// TestReasonInputsShowTheirPlaceholder: the inputs for a denial's reason
// and a plan's feedback show their whole placeholder (B3), which says what
// enter does.
func TestReasonInputsShowTheirPlaceholder(t *testing.T) {
	st, keys := newTheme(true, true), newKeyMap()
	d := newApprovalDialog(approvalAsk{req: orchestrator.ApprovalRequest{Tool: "shell", Kind: tools.KindExec, Subject: "ls"}},
		"/p", &st, keys)
	d.Update(keyPress("n"))
	if v := dialogView(d, 80, 10); !strings.Contains(v, "ptional, the model sees it; enter to deny") {
		t.Errorf("reason input:\n%s", v)
	}
	p := newPlanDialog(planAsk{plan: plan.Plan{Summary: "s", Steps: []plan.Step{{Text: "a"}}}}, &st, keys)
	p.Update(keyPress("n"))
	if v := dialogView(p, 80, 10); !strings.Contains(v, "hat to change; enter rejects the plan with it") {
		t.Errorf("feedback input:\n%s", v)
	}
}

// TestApprovalDialogLiftsTheSandboxOnce: a sandboxed command may be run
// outside the sandbox, or with network, by a choice of its own; the
// choices show only for a sandboxed call, and nothing is remembered.
func TestApprovalDialogLiftsTheSandboxOnce(t *testing.T) {
	st, keys := newTheme(true, true), newKeyMap()
	for _, tc := range []struct {
		key  string
		want tools.Escalation
	}{{"o", tools.Escalation{Unconfined: true}}, {"w", tools.Escalation{Network: true}}, {"y", tools.Escalation{}}} {
		req := orchestrator.ApprovalRequest{Tool: "shell", Kind: tools.KindExec, Subject: "npm install", Sandboxed: true}
		reply := make(chan orchestrator.Decision, 1)
		d := newApprovalDialog(approvalAsk{req: req, reply: reply}, "/p", &st, keys)
		v := dialogView(d, 100, 10)
		if !strings.Contains(v, "o run outside the sandbox") || !strings.Contains(v, "w with network") {
			t.Fatalf("the choices:\n%s", v)
		}
		if _, cmd := d.Update(keyPress(tc.key)); !closes(d, cmd) {
			t.Fatalf("%s did not answer", tc.key)
		}
		d.answer()
		if got := <-reply; !got.Allow || got.Escalation != tc.want {
			t.Errorf("%s: decision %+v, want allowed with %+v", tc.key, got, tc.want)
		}
		if d.grant {
			t.Errorf("%s: remembered for the session", tc.key)
		}
	}
	plain := newApprovalDialog(approvalAsk{req: orchestrator.ApprovalRequest{Tool: "shell", Kind: tools.KindExec, Subject: "ls"},
		reply: make(chan orchestrator.Decision, 1)}, "/p", &st, keys)
	if v := dialogView(plain, 100, 10); strings.Contains(v, "sandbox") {
		t.Errorf("an unconfined call offers to lift the sandbox:\n%s", v)
	}
	if _, cmd := plain.Update(keyPress("o")); closes(plain, cmd) {
		t.Error("o answered for a call the sandbox does not confine")
	}
}

// TestApprovalDialogSaysWhatUndoCannotRestore: the note of a write undo
// could not take back shows before it is approved.
func TestApprovalDialogSaysWhatUndoCannotRestore(t *testing.T) {
	st, keys := newTheme(true, true), newKeyMap()
	req := orchestrator.ApprovalRequest{Tool: "write_file", Kind: tools.KindWrite, Subject: "big.bin",
		Note: "too large to checkpoint (12 MB, over 10 MB): undo cannot restore it"}
	d := newApprovalDialog(approvalAsk{req: req}, "/p", &st, keys)
	if v := dialogView(d, 100, 10); !strings.Contains(v, "! too large to checkpoint (12 MB, over 10 MB): undo cannot restore it") {
		t.Errorf("view:\n%s", v)
	}
}

// TestBlockedCommandIsAskedAgain: a command the sandbox blocked something
// of the last time is asked about, with the choices that lift the
// sandbox and what it blocked, though --yes and a grant of that command
// would allow it; "o" runs it outside the sandbox, once. Without a block,
// the same request is allowed without asking.
func TestBlockedCommandIsAskedAgain(t *testing.T) {
	m, _ := testModel(t)
	m.opts.Engine.Config.Approval.All = true
	req := orchestrator.ApprovalRequest{Tool: "shell", Kind: tools.KindExec, Subject: "npm install", Sandboxed: true}
	m.approver.grants.Grant(req)
	done, cancel := context.WithCancel(t.Context())
	cancel() // asking would block: a cancelled ctx makes it fail at once
	if d, err := m.approvals().Approve(done, req); err != nil || !d.Allow {
		t.Fatalf("not blocked: %+v, %v; want allowed without asking", d, err)
	}

	req.Blocked = []string{"write to /usr/lib/node_modules", "network: socket(AF_INET, SOCK_STREAM) by node"}
	decided := make(chan orchestrator.Decision, 1)
	go func() {
		d, _ := m.approvals().Approve(t.Context(), req)
		decided <- d
	}()
	var ask approvalAsk
	select {
	case v := <-m.bridge.ch:
		ask = v.(approvalAsk)
	case d := <-decided:
		t.Fatalf("decided without asking: %+v", d)
	}
	m.beginRun("install")
	events(m, orchestrator.TurnStarted{Turn: 1}, orchestrator.ToolStarted{Turn: 1, Name: "shell", Subject: req.Subject}, ask)
	s := screen(m)
	for _, want := range []string{"! the sandbox blocked it last time: write to /usr/lib/node_modules; network:",
		"o run outside the sandbox", "w with network"} {
		if !strings.Contains(s, want) {
			t.Errorf("the dialog lacks %q:\n%s", want, s)
		}
	}
	do(m, "o")
	if d := <-decided; !d.Allow || d.Escalation != (tools.Escalation{Unconfined: true}) {
		t.Errorf("decision %+v, want allowed outside the sandbox", d)
	}
}

// TestApprovalDialogShowsTheFact: a fact to remember is shown whole,
// wrapped, its control characters escaped, and y allows it.
func TestApprovalDialogShowsTheFact(t *testing.T) {
	fact := "Tests run with `make check`, which also runs the linter; never edit generated/ by hand\x1b[8m."
	st, keys := newTheme(true, true), newKeyMap()
	reply := make(chan orchestrator.Decision, 1)
	d := newApprovalDialog(approvalAsk{req: orchestrator.ApprovalRequest{Tool: "remember", Kind: tools.KindMemory, Subject: fact}, reply: reply},
		"/home/dev/proj", &st, keys)
	view := dialogView(d, 50, 20)
	if !strings.Contains(view, "? Remember this about /home/dev/proj, for its") {
		t.Errorf("title:\n%s", view)
	}
	joined := strings.Join(strings.Fields(view), " ")
	if !strings.Contains(joined, "Tests run with `make check`, which also runs the linter; never edit generated/ by hand\\x1b[8m.") {
		t.Errorf("the fact is not shown whole and escaped:\n%s", view)
	}
	_, cmd := d.Update(keyPress("y"))
	if !closes(d, cmd) {
		t.Fatal("y does not answer")
	}
	if d.answer(); !(<-reply).Allow {
		t.Error("y does not allow it")
	}
}

// dialogView is d's view at width×height, without colours.
func dialogView(d dialog, width, height int) string {
	d.SetSize(width, height)
	return ansi.Strip(d.View())
}

// closes reports whether cmd tells the root that d was answered.
func closes(d dialog, cmd tea.Cmd) bool {
	if cmd == nil {
		return false
	}
	msg, ok := cmd().(dialogClosedMsg)
	return ok && msg.d == d
}

// TestApprovalDialogShowsTheWholeCommand: a command longer than the
// dialog is folded, never cut: at every width, scrolling through the
// dialog shows every character of it, in order, and the rows that go on
// from another say so (F12). A diff's long line and an MCP call's
// arguments fold the same way.
func TestApprovalDialogShowsTheWholeCommand(t *testing.T) {
	command := "go test ./... -run 'TestTheParserHandlesAVeryLongInputWithoutPanickingAtAll' && rm -rf ./important-data" +
		" && echo " + strings.Repeat("x", 90) + " done\n  second line\twith a tab"
	line := "+var s = \"" + strings.Repeat("long-literal ", 20) + "\" // and the end"
	st, keys := newTheme(true, true), newKeyMap()
	for _, tc := range []struct {
		name string
		req  orchestrator.ApprovalRequest
		want string
	}{
		{"command", orchestrator.ApprovalRequest{Tool: "shell", Kind: tools.KindExec, Subject: command},
			strings.ReplaceAll(command, "\t", "    ")},
		{"diff", orchestrator.ApprovalRequest{Tool: "write_file", Kind: tools.KindWrite, Subject: "a.go",
			Preview: "--- a.go\n+++ a.go\n@@ -0,0 +1 @@\n" + line + "\n"}, "@@ -0,0 +1 @@\n" + line},
		{"arguments", orchestrator.ApprovalRequest{Tool: "mcp", Kind: tools.KindExternal, Server: "s", ServerTool: "t",
			Args: `{"query":"` + strings.Repeat("word ", 40) + `end"}`},
			"{\n  \"query\": \"" + strings.Repeat("word ", 40) + "end\"\n}"},
	} {
		for _, width := range []int{40, 60, 80, 120} {
			for _, height := range []int{7, 30} {
				d := newApprovalDialog(approvalAsk{req: tc.req}, "/p", &st, keys)
				if got := dialogBody(t, d, width, height); got != tc.want {
					t.Errorf("%s at %d×%d shows\n%s\nwant\n%s", tc.name, width, height, got, tc.want)
				}
			}
		}
	}
}

// dialogBody scrolls through an approval dialog at width×height and
// returns what its body shows, its folded rows joined again.
func dialogBody(t *testing.T, d *approvalDialog, width, height int) string {
	t.Helper()
	rows := map[int]string{}
	total := 0
	for range 200 {
		view := strings.Split(dialogView(d, width, height), "\n")
		first, last := 1, 0
		var body []string
		for _, l := range view {
			if w := ansi.StringWidth(l); w > width {
				t.Fatalf("a line of %d columns at width %d: %q", w, width, l)
			}
			switch {
			case strings.HasPrefix(strings.TrimSpace(l), "lines "):
				fmt.Sscanf(strings.TrimSpace(l), "lines %d–%d of %d", &first, &last, &total)
			case strings.HasPrefix(l, "  $ "), strings.HasPrefix(l, "   ↪"), strings.HasPrefix(l, "    "):
				body = append(body, l)
			}
		}
		if total == 0 {
			total, last = len(body), len(body)
		}
		for i, l := range body {
			rows[first+i] = l
		}
		if last >= total {
			break
		}
		d.Update(keyPress("down"))
	}
	var b strings.Builder
	for i := 1; i <= total; i++ {
		l, ok := rows[i]
		if !ok {
			t.Fatalf("row %d of %d never shown", i, total)
		}
		if rest, cont := strings.CutPrefix(l, "   ↪"); cont {
			b.WriteString(rest)
			continue
		}
		if i > 1 {
			b.WriteByte('\n')
		}
		b.WriteString(l[4:])
	}
	return b.String()
}

// TestApprovalDialogSaysCreate: a write that makes a new file asks to
// create it, not to change it (F16).
func TestApprovalDialogSaysCreate(t *testing.T) {
	st, keys := newTheme(true, true), newKeyMap()
	for preview, want := range map[string]string{
		"--- /dev/null\n+++ a.txt\n@@ -0,0 +1 @@\n+alpha\n":  "? Allow write_file to create a.txt?",
		"--- a.txt\n+++ a.txt\n@@ -1 +1 @@\n-alpha\n+beta\n": "? Allow write_file to change a.txt?",
	} {
		d := newApprovalDialog(approvalAsk{req: orchestrator.ApprovalRequest{Tool: "write_file", Kind: tools.KindWrite,
			Subject: "a.txt", Preview: preview}}, "/p", &st, keys)
		if v := dialogView(d, 80, 12); !strings.Contains(v, want) {
			t.Errorf("want %q:\n%s", want, v)
		}
	}
}

// TestApprovalDialogTakesTheRoom: a long diff takes the screen but for a
// few lines of the transcript, and Home and End jump to its ends (F16).
func TestApprovalDialogTakesTheRoom(t *testing.T) {
	var diff strings.Builder
	diff.WriteString("--- a.txt\n+++ a.txt\n@@ -0,0 +1,200 @@\n")
	for i := range 200 {
		fmt.Fprintf(&diff, "+line %d\n", i)
	}
	m, _ := testModel(t)
	m.beginRun("write it")
	events(m, orchestrator.TurnStarted{Turn: 1}, orchestrator.ToolStarted{Turn: 1, Name: "write_file", Subject: "a.txt"},
		approvalAsk{req: orchestrator.ApprovalRequest{Tool: "write_file", Kind: tools.KindWrite, Subject: "a.txt", Preview: diff.String()},
			reply: make(chan orchestrator.Decision, 1)})
	if s := screen(m); !strings.Contains(s, "lines 1–11 of 201") {
		t.Errorf("at 80×24 the diff shows:\n%s", s)
	}
	press(m, "end")
	if s := screen(m); !strings.Contains(s, "lines 191–201 of 201") || !strings.Contains(s, "+line 199") {
		t.Errorf("end:\n%s", s)
	}
	press(m, "home")
	if s := screen(m); !strings.Contains(s, "lines 1–11 of 201") {
		t.Errorf("home:\n%s", s)
	}
}
