package cli

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
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
	srv := ollamatest.New(b)
	home := b.TempDir()
	if config != "" {
		if err := os.MkdirAll(filepath.Join(home, "lathe"), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(home, "lathe", "config.toml"), []byte(config), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	env := append(os.Environ(), "OLLAMA_HOST="+srv.URL(), "HOME="+home, "XDG_STATE_HOME="+home, "XDG_CONFIG_HOME="+home, "XDG_DATA_HOME="+home, "LATHE_MODEL=")
	buf := make([]byte, 64<<10)
	var cpu time.Duration
	for b.Loop() {
		cmd := exec.Command(bin, "-C", home)
		cmd.Env = env
		ptmx, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: 100, Rows: 30})
		if err != nil {
			b.Fatal(err)
		}
		stuck := time.AfterFunc(10*time.Second, func() { _ = cmd.Process.Kill() })
		var seen []byte
		// The input's placeholder is in the first frame.
		for !bytes.Contains(seen, []byte("for commands")) {
			n, err := ptmx.Read(buf)
			if err != nil {
				b.Fatalf("no first frame: %v\n%q", err, seen)
			}
			seen = append(seen, buf[:n]...)
		}
		stuck.Stop()
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		ptmx.Close()
	}
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
}
