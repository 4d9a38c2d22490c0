package cli

import (
	"bytes"
	"database/sql"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/creack/pty"

	"lathe/orchestrator/provider/ollama/ollamatest"
)

// buildLathe builds the lathe binary into a temporary directory.
func buildLathe(b testing.TB, tags ...string) string {
	b.Helper()
	bin := filepath.Join(b.TempDir(), "lathe")
	args := []string{"build", "-o", bin}
	for _, t := range tags {
		args = append(args, "-tags", t)
	}
	if out, err := exec.Command("go", append(args, "lathe")...).CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// BenchmarkStartup measures the built binary: "lathe --version" until it
// exits, and "lathe" until its first frame is on the (pseudo-)terminal.
// The two must stay within a few milliseconds: nothing of lathe's may run
// before the first frame that could run after it. "floor" is a Go program
// that only prints a line, measured the same way: what --version would
// cost if nothing were initialised before main.
func BenchmarkStartup(b *testing.B) {
	bin := buildLathe(b)
	floor := buildFloor(b)
	// All run on a pseudo-terminal: libraries detect the terminal's colours
	// at start-up when their output is one, which is part of the cost.
	b.Run("floor", func(b *testing.B) { exitsOnTerminal(b, floor) })
	b.Run("version", func(b *testing.B) { exitsOnTerminal(b, bin, "--version") })
	b.Run("first-frame", func(b *testing.B) { firstFrame(b, bin, "") })
	// Two MCP servers, one of which never answers: they start in the
	// background, and the first frame does not wait for them.
	b.Run("first-frame-mcp", func(b *testing.B) {
		fake := filepath.Join(b.TempDir(), "fakemcp")
		if out, err := exec.Command("go", "build", "-o", fake, "lathe/scripts/fakemcp").CombinedOutput(); err != nil {
			b.Fatalf("go build: %v\n%s", err, out)
		}
		firstFrame(b, bin, fmt.Sprintf("[mcp.servers.quick]\ncommand = %q\n\n"+
			"[mcp.servers.stuck]\ncommand = %q\nenv = { MCPTEST_START = \"hang\" }\n", fake, fake))
	})
	// With the database LATHE_SESSIONS_SCALE names (filled by
	// scripts/gensessions, see BenchmarkResumeAtScale in ui), copied: a
	// new session and its long session resumed, in turn; the time to
	// each one's first frame (the median), and their ratio.
	if path := os.Getenv("LATHE_SESSIONS_SCALE"); path != "" {
		b.Run("first-frame-resume", func(b *testing.B) {
			home := scaleHome(b, path)
			env := frameEnv(b, home)
			var fresh, resumed []time.Duration
			for b.Loop() {
				w, _ := frameOnce(b, bin, env, "-C", home)
				fresh = append(fresh, w)
				w, _ = frameOnce(b, bin, env, "-C", home, "--resume", "0000000000000000")
				resumed = append(resumed, w)
			}
			slices.Sort(fresh)
			slices.Sort(resumed)
			f, r := fresh[len(fresh)/2], resumed[len(resumed)/2]
			b.ReportMetric(float64(f.Microseconds())/1000, "ms-new-session")
			b.ReportMetric(float64(r.Microseconds())/1000, "ms-resumed")
			b.ReportMetric(float64(r)/float64(f), "x-new-session")
		})
	}
}

// scaleHome is a home whose session database is a copy of the one at
// path, its long session moved to the home directory.
func scaleHome(b *testing.B, path string) string {
	home := b.TempDir()
	if err := os.MkdirAll(filepath.Join(home, "lathe"), 0o755); err != nil {
		b.Fatal(err)
	}
	copied := filepath.Join(home, "lathe", "lathe.db")
	if out, err := exec.Command("cp", path, copied).CombinedOutput(); err != nil {
		b.Fatalf("cp: %v\n%s", err, out)
	}
	db, err := sql.Open("sqlite", copied)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`UPDATE sessions SET dir = ?`, home); err != nil {
		b.Fatal(err)
	}
	return home
}

// buildFloor builds a Go program that prints one line and exits.
func buildFloor(b *testing.B) string {
	b.Helper()
	dir := b.TempDir()
	src := filepath.Join(dir, "floor.go")
	if err := os.WriteFile(src, []byte("package main\n\nimport \"os\"\n\nfunc main() { os.Stdout.WriteString(\"floor\\n\") }\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	bin := filepath.Join(dir, "floor")
	if out, err := exec.Command("go", "build", "-o", bin, src).CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// exitsOnTerminal measures bin run with args on a pseudo-terminal, until
// it exits. cpu-ms/op is the CPU time the process took, which other work
// on the machine changes less than the time it took to exit.
func exitsOnTerminal(b *testing.B, bin string, args ...string) {
	var cpu time.Duration
	for b.Loop() {
		cmd := exec.Command(bin, args...)
		ptmx, err := pty.Start(cmd)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, ptmx)
		if err := cmd.Wait(); err != nil {
			b.Fatal(err)
		}
		cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		ptmx.Close()
	}
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
}

// firstFrame measures "lathe" until its first frame is on the
// (pseudo-)terminal, with config as the user's config file; cpu-ms/op is
// the CPU time it took until it was killed, a little after that frame.
func firstFrame(b *testing.B, bin, config string) {
	home := b.TempDir()
	if config != "" {
		if err := os.MkdirAll(filepath.Join(home, "lathe"), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(home, "lathe", "config.toml"), []byte(config), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	firstFrameIn(b, bin, home, "-C", home)
}

// firstFrameIn is firstFrame with home as the user's home (and every XDG
// directory), lathe run with args.
func firstFrameIn(b *testing.B, bin, home string, args ...string) {
	env := frameEnv(b, home)
	var cpu time.Duration
	for b.Loop() {
		_, c := frameOnce(b, bin, env, args...)
		cpu += c
	}
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
}

// frameEnv is the environment of lathe with home as the user's home and
// every XDG directory, against a fake Ollama server.
func frameEnv(b *testing.B, home string) []string {
	srv := ollamatest.New(b)
	return append(os.Environ(), "OLLAMA_HOST="+srv.URL(), "HOME="+home, "XDG_STATE_HOME="+home, "XDG_CONFIG_HOME="+home,
		"XDG_DATA_HOME="+home, "LATHE_MODEL=")
}

// frameOnce runs lathe with args in env until its first frame is on the
// (pseudo-)terminal, and returns the time that took and the CPU time
// the process took until it was killed, a little after that frame.
func frameOnce(b *testing.B, bin string, env []string, args ...string) (wall, cpu time.Duration) {
	start := time.Now()
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	ptmx, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: 100, Rows: 30})
	if err != nil {
		b.Fatal(err)
	}
	defer ptmx.Close()
	stuck := time.AfterFunc(10*time.Second, func() { _ = cmd.Process.Kill() })
	var seen []byte
	buf := make([]byte, 64<<10)
	// The input's placeholder is in the first frame.
	for !bytes.Contains(seen, []byte("for commands")) {
		n, err := ptmx.Read(buf)
		if err != nil {
			b.Fatalf("no first frame: %v\n%q", err, seen)
		}
		seen = append(seen, buf[:n]...)
	}
	wall = time.Since(start)
	stuck.Stop()
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	return wall, cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
}
