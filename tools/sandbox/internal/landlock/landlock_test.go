//go:build linux

package landlock

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestGrant(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"a/x", "a/y", "b", "secret/inner"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "f"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("secret", filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	r := func(rel string) string { return filepath.Join(root, rel) }
	for _, tc := range []struct {
		name string
		deny []string
		want []Rule
	}{
		{"nothing denied", nil, []Rule{{Path: root, Access: Write}}},
		{"denied elsewhere", []string{"/elsewhere", root + "x"}, []Rule{{Path: root, Access: Write}}},
		{"all denied", []string{root}, nil},
		{"root beneath a denied path", []string{filepath.Dir(root)}, nil},
		{"one entry denied", []string{r("secret")}, []Rule{
			{Path: root, Access: ReadDir},
			{Path: r("a"), Access: Write, NoFollow: true},
			{Path: r("b"), Access: Write, NoFollow: true},
			{Path: r("f"), Access: Write, NoFollow: true},
			// link is skipped: it would carry the grant to secret.
		}},
		{"two levels down", []string{r("a/x")}, []Rule{
			{Path: root, Access: ReadDir},
			{Path: r("a"), Access: ReadDir, NoFollow: true},
			{Path: r("a/y"), Access: Write, NoFollow: true},
			{Path: r("b"), Access: Write, NoFollow: true},
			{Path: r("f"), Access: Write, NoFollow: true},
			{Path: r("secret"), Access: Write, NoFollow: true},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Grant(root, Write, tc.deny)
			if !slices.Equal(got, tc.want) {
				t.Errorf("got  %v\nwant %v", got, tc.want)
			}
		})
	}
}

func TestHandled(t *testing.T) {
	for _, tc := range []struct {
		abi           int
		fs, net, scop uint64
	}{
		{0, 0, 0, 0},
		{1, 1<<13 - 1, 0, 0},
		{3, 1<<15 - 1, 0, 0},
		{4, 1<<15 - 1, BindTCP | ConnectTCP, 0},
		{6, 1<<16 - 1, BindTCP | ConnectTCP, ScopeSignal | ScopeAbstractUnix},
		{9, 1<<17 - 1, BindTCP | ConnectTCP, ScopeSignal | ScopeAbstractUnix},
		{10, 1<<17 - 1, 1<<4 - 1, ScopeSignal | ScopeAbstractUnix},
	} {
		if fs, net, sc := HandledFS(tc.abi), HandledNet(tc.abi), HandledScopes(tc.abi); fs != tc.fs || net != tc.net || sc != tc.scop {
			t.Errorf("ABI %d: %#x %#x %#x, want %#x %#x %#x", tc.abi, fs, net, sc, tc.fs, tc.net, tc.scop)
		}
	}
	if Write&(MakeChar|MakeBlock|IoctlDev) != 0 {
		t.Error("writable directories would allow device nodes")
	}
}
