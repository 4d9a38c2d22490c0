package skill

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"lathe/prompts"
	"lathe/tools"
)

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func skillMD(name, desc, body string) string {
	return "---\nname: " + name + "\ndescription: " + desc + "\n---\n" + body
}

// fixture is a project and a user folder with skills, and the bad input
// skills meet: a folder without SKILL.md, one without a description,
// broken front matter, a name taken twice, a link out of the project, a
// SKILL.md of 5 MB.
func fixture(t *testing.T) (Dirs, string) {
	ws, user, outside := t.TempDir(), t.TempDir(), t.TempDir()
	write(t, filepath.Join(ws, ".lathe/skills/pdf/SKILL.md"), skillMD("pdf", "Read, fill and merge PDF files.", "# PDF\nUse pdftotext.\n"))
	write(t, filepath.Join(ws, ".lathe/skills/pdf/forms.md"), "Fill the form field by field.\n")
	write(t, filepath.Join(ws, ".lathe/skills/pdf/scripts/fill.py"), "print('fill')\n")
	write(t, filepath.Join(ws, ".claude/skills/pdf/SKILL.md"), skillMD("pdf", "Claude's PDF skill.", "x"))
	write(t, filepath.Join(ws, ".agents/skills/notes/README.md"), "no SKILL.md here\n")
	write(t, filepath.Join(ws, ".agents/skills/nodesc/SKILL.md"), "---\nname: nodesc\n---\nbody\n")
	write(t, filepath.Join(ws, ".agents/skills/broken/SKILL.md"), "---\nname: broken\ndescription: a: b\n---\n")
	write(t, filepath.Join(ws, ".claude/skills/big/SKILL.md"), skillMD("big", "A very large skill.", strings.Repeat("word ", 1<<20)))
	write(t, filepath.Join(outside, "leak/SKILL.md"), skillMD("leak", "Secret.", "the secret"))
	if err := os.MkdirAll(filepath.Join(ws, ".claude/skills/linked"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "leak/SKILL.md"), filepath.Join(ws, ".claude/skills/linked/SKILL.md")); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(user, "release-notes/SKILL.md"), skillMD("release-notes", "Write release notes from the git log.", "Read git log."))
	return Dirs{Workspace: ws, User: user}, ws
}

func TestLoad(t *testing.T) {
	dirs, ws := fixture(t)
	c, warnings := Load(dirs)
	var names []string
	for _, s := range c.All() {
		names = append(names, s.Name)
	}
	if got := strings.Join(names, " "); got != "big pdf release-notes" {
		t.Errorf("skills %s", got)
	}
	pdf, _ := c.Find("pdf")
	if pdf.Description != "Read, fill and merge PDF files." || pdf.Rel != ".lathe/skills/pdf" || !pdf.Project ||
		strings.Join(pdf.Files, " ") != "forms.md scripts/fill.py" {
		t.Errorf("pdf %+v", pdf)
	}
	if rn, _ := c.Find("release-notes"); rn.Project || rn.Rel != "" {
		t.Errorf("release-notes %+v", rn)
	}
	w := strings.Join(warnings, "\n")
	for _, want := range []string{
		filepath.Join(ws, ".claude/skills/pdf") + ": left out: the skill pdf is " + filepath.Join(ws, ".lathe/skills/pdf") + " already",
		".agents/skills/notes: left out: the folder has no SKILL.md",
		".agents/skills/nodesc/SKILL.md: left out: its front matter has no description",
		".agents/skills/broken/SKILL.md:3: its front matter is broken",
		".claude/skills/linked/SKILL.md: not read:",
	} {
		if !strings.Contains(w, want) {
			t.Errorf("warnings lack %q:\n%s", want, w)
		}
	}
}

func call(t *testing.T, tool tools.Tool, args string) tools.Result {
	t.Helper()
	c, err := tool.Prepare(json.RawMessage(args))
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.Run(t.Context(), tools.Caller{})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestTool(t *testing.T) {
	dirs, _ := fixture(t)
	c, _ := Load(dirs)
	tool := Tool(c, 12000)
	if tool.Kind() != tools.KindRead || !tool.(tools.Optional).Available(t.Context()) {
		t.Error("not a read-only tool offered")
	}
	for _, tc := range []struct{ name, args, want string }{
		{"loaded", `{"name":"pdf"}`, "[skill pdf]\n# PDF\nUse pdftotext.\n\n[files beside it: forms.md, scripts/fill.py; " +
			"read one with skill and its file, or read_file .lathe/skills/pdf/FILE]"},
		{"a file", `{"name":"pdf","file":"forms.md"}`, "[pdf/forms.md]\nFill the form field by field."},
		{"out of it", `{"name":"pdf","file":"../../../etc/passwd"}`, `error: "../../../etc/passwd" is not a file of the skill pdf's folder`},
		{"the user's", `{"name":"release-notes"}`, "[skill release-notes]\nRead git log."},
		{"found", `{"name":"write the release notes"}`, "No skill is named \"write the release notes\"; these fit it best: " +
			"load one with skill and its name.\n- release-notes: Write release notes from the git log."},
		{"none fits", `{"name":"haiku"}`, `No skill is named "haiku"; none fits those words. The skills: big, pdf, release-notes.`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := call(t, tool, tc.args).Content; got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
	big := call(t, tool, `{"name":"big"}`)
	if len(big.Content) > 12200 || !strings.HasPrefix(big.Content, "[skill big: SKILL.md has 5242931 bytes, only its first 12000 are shown]") {
		t.Errorf("a 5 MB skill: %d bytes: %.120q", len(big.Content), big.Content)
	}
	if none, _ := Load(Dirs{Workspace: t.TempDir()}); Tool(none, 1000).(tools.Optional).Available(t.Context()) {
		t.Error("offered without skills")
	}
}

// TestView: the list fits its budget: descriptions, else names, else a
// count; and it is the same bytes every time.
func TestView(t *testing.T) {
	dirs, _ := fixture(t)
	c, _ := Load(dirs)
	full := c.View(4000)
	if len(full.List) != 3 || full.Names || full.List[1].Description != "Read, fill and merge PDF files." {
		t.Errorf("full %+v", full)
	}
	size := len(prompts.Skills(full))
	names := c.View(size - 1)
	if !names.Names || len(names.List) != 3 {
		t.Errorf("names %+v", names)
	}
	if count := c.View(20); count.Count != 3 || len(count.List) != 0 {
		t.Errorf("count %+v", count)
	}
	if prompts.Skills(c.View(4000)) != prompts.Skills(full) {
		t.Error("the list changes from one view to the next")
	}
}
