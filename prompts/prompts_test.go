package prompts

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

var update = flag.Bool("update", false, "rewrite golden files")

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from golden file:\n--- got ---\n%s\n--- want ---\n%s", name, got, want)
	}
}

func TestBuildPromptGolden(t *testing.T) {
	tests := []struct {
		name string
		data Build
	}{
		{"build.golden", Build{Dir: "/home/dev/proj", OS: "linux", Arch: "amd64"}},
		{"build_git_agents.golden", Build{Dir: "/home/dev/proj", OS: "darwin", Arch: "arm64", Git: true,
			Instructions: "\nUse tabs. Run `make test` before you finish.\n\n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := BuildPrompt(tt.data)
			if err != nil {
				t.Fatal(err)
			}
			golden(t, tt.name, got)
		})
	}
}

func TestBuildPromptIsStable(t *testing.T) {
	data := Build{Dir: "/p", OS: "linux", Arch: "amd64", Git: true, Instructions: "x"}
	first, _ := BuildPrompt(data)
	for range 20 {
		if again, _ := BuildPrompt(data); again != first {
			t.Fatal("the same data rendered two different prompts")
		}
	}
}

func TestInstructionsAreCapped(t *testing.T) {
	long := strings.Repeat("Always write tests first, é.\n", 1000) // ~30 KB, multi-byte runes
	got, err := BuildPrompt(Build{Dir: "/p", OS: "linux", Arch: "amd64", Instructions: long})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(got, "[AGENTS.md was cut: only its first 8192 bytes are shown.]") {
		t.Error("a cut AGENTS.md is not announced")
	}
	if !utf8.ValidString(got) {
		t.Error("cutting split a UTF-8 sequence")
	}
	if n := strings.Count(got, "Always write tests first"); n == 0 || n > InstructionsLimit/28 {
		t.Errorf("%d instruction lines kept, want some but at most the limit", n)
	}
	short, _ := BuildPrompt(Build{Dir: "/p", OS: "linux", Arch: "amd64", Instructions: "Be brief."})
	if strings.Contains(short, "was cut") || !strings.Contains(short, "Be brief.") {
		t.Errorf("short instructions mishandled:\n%s", short)
	}
}

func TestCapText(t *testing.T) {
	tests := []struct {
		in    string
		limit int
		want  string
		cut   bool
	}{
		{"short", 10, "short", false},
		{"aaaa\nbbbb\ncccc", 12, "aaaa\nbbbb", true},
		{"ééééé", 5, "éé", true}, // 10 bytes; 5 would split the third é
	}
	for _, tt := range tests {
		got, cut := capText(tt.in, tt.limit)
		if got != tt.want || cut != tt.cut {
			t.Errorf("capText(%q, %d) = %q, %v; want %q, %v", tt.in, tt.limit, got, cut, tt.want, tt.cut)
		}
	}
}

func TestCompactAndTitlePrompts(t *testing.T) {
	c, err := CompactPrompt(400)
	if err != nil || !strings.Contains(c, "at most 400 words") || !strings.Contains(c, "Do not call tools") {
		t.Errorf("CompactPrompt = %q, %v", c, err)
	}
	title, err := TitlePrompt()
	if err != nil || !strings.HasPrefix(title, "Reply with a title") {
		t.Errorf("TitlePrompt = %q, %v", title, err)
	}
}
