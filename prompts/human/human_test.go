package human

import (
	"testing"
	"time"
)

func TestHuman(t *testing.T) {
	tests := []struct{ got, want string }{
		{Plural(1, "turn"), "1 turn"},
		{Plural(2, "turn"), "2 turns"},
		{Plural(3, "entry"), "3 entries"},
		{Plural(4, "match"), "4 matches"},
		{Plural(0, "day"), "0 days"},
		{Plural(2, "process"), "2 processes"},
		{Line("  a\n b\tc  ", 10), "a b c"},
		{Line("abcdefghijkl", 5), "abcd…"},
		{Duration(1234567 * time.Microsecond).String(), "1.2s"},
		{Duration(1234567 * time.Nanosecond).String(), "1ms"},
		{Ago(30 * time.Second), "now"},
		{Ago(5 * time.Minute), "5m"},
		{Ago(47 * time.Hour), "47h"},
		{Ago(72 * time.Hour), "3d"},
		{Thousands(32768), "32,768"},
		{Thousands(-1234567), "-1,234,567"},
		{Thousands(999), "999"},
		{Bytes(512), "512 B"},
		{Bytes(4_920_753_328), "4.9 GB"},
		{Size(512), "512 B"},
		{Size(10 << 20), "10 MiB"},
		{Size(22_700_000), "21.6 MiB"},
		{Size(2 << 30), "2 GiB"},
		{Visible("go test ./...;touch x #\rgo test ./...   "), `go test ./...;touch x #\rgo test ./...   `},
		{Visible("rm -rf ~/x\x1b[2K\x1b[8m hidden"), `rm -rf ~/x\x1b[2K\x1b[8m hidden`},
		{Visible("a\tb\nc\u2028d\u202ee"), "a\tb\nc\\u2028d\\u202ee"},
		{Line("x\ry\x1b]52;c;AA\x07", 40), `x\ry\x1b]52;c;AA\x07`},
		{Visible("caf\xe9.txt \ufffd"), `caf\xe9.txt ` + "\ufffd"}, // F8
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}

func TestPath(t *testing.T) {
	for _, tc := range []struct{ path, want string }{
		{"/home/me/api/.claude/settings.json", ".claude/settings.json"},
		{"/home/me/.config/lathe/config.toml", "~/.config/lathe/config.toml"},
		{"/etc/lathe.toml", "/etc/lathe.toml"},
		{"/home/me/api2/x", "~/api2/x"},
	} {
		if got := Path(tc.path, "/home/me/api", "/home/me"); got != tc.want {
			t.Errorf("Path(%s) = %s, want %s", tc.path, got, tc.want)
		}
	}
}
