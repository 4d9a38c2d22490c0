package tools

import (
	"slices"
	"strings"
	"testing"
)

// TestAliases: each of Claude Code's tool names stands for one built-in
// tool, so that a hook written for Claude Code ("Edit|Write") fires on
// lathe's calls.
func TestAliases(t *testing.T) {
	ws := newWorkspace(t, nil)
	var got []string
	for _, tool := range Default(ws, Options{}).All() {
		for _, a := range Aliases(tool) {
			got = append(got, a+"="+tool.Name())
		}
	}
	slices.Sort(got)
	want := "Bash=shell Edit=edit_file Glob=glob Grep=grep LS=list_dir MultiEdit=edit_file Read=read_file Write=write_file"
	if strings.Join(got, " ") != want {
		t.Errorf("aliases %s\nwant    %s", strings.Join(got, " "), want)
	}
}
