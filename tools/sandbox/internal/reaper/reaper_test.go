//go:build linux

package reaper

import (
	"io"
	"os"
	"slices"
	"syscall"
	"testing"
	"time"
)

func TestParseStat(t *testing.T) {
	for _, tc := range []struct {
		in    string
		ppid  int
		comm  string
		state byte
		ok    bool
	}{
		{"12 (sleep) S 7 12 12 0", 7, "sleep", 'S', true},
		{"13 (a) (b) c) Z 1 13", 1, "a) (b) c", 'Z', true},
		{"14 (x y) R 99", 99, "x y", 'R', true},
		{"15 (broken", 0, "", 0, false},
		{"16 (x) S", 0, "", 0, false},
	} {
		ppid, comm, state, ok := parseStat([]byte(tc.in))
		if ppid != tc.ppid || comm != tc.comm || state != tc.state || ok != tc.ok {
			t.Errorf("%q: %d %q %c %v", tc.in, ppid, comm, state, ok)
		}
	}
}

// TestKillAll starts a shell that leaves two sleeps, one in a session of
// its own, and kills all three.
func TestKillAll(t *testing.T) {
	if err := Become(); err != nil {
		t.Fatal(err)
	}
	ready, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	// The shell says "ready" once both sleeps run (not setsid, not a fork
	// of sh about to become sleep), so that the names are known.
	script := `setsid sleep 1000 & sleep 1000 &
until [ "$(pgrep -c -x -P $$ sleep)" = 2 ]; do :; done
echo ready; wait`
	pid, err := syscall.ForkExec("/bin/sh", []string{"sh", "-c", script}, &syscall.ProcAttr{
		Env: os.Environ(), Files: []uintptr{0, w.Fd(), 2},
	})
	w.Close()
	if err != nil {
		t.Fatal(err)
	}
	r := Start(pid)
	if b, _ := io.ReadAll(io.LimitReader(ready, 6)); string(b) != "ready\n" {
		t.Fatalf("read %q", b)
	}
	killed, survivors := r.KillAll(time.Now().Add(5 * time.Second))
	var names []string
	for _, p := range killed {
		names = append(names, p.Name)
	}
	slices.Sort(names)
	if !slices.Equal(names, []string{"sh", "sleep", "sleep"}) || len(survivors) > 0 {
		t.Errorf("killed %v, survivors %v", killed, survivors)
	}
	<-r.MainDone()
	if ws := r.Status(); !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Errorf("shell status %v", ws)
	}
	<-r.AllGone()
	if d := Descendants(os.Getpid()); len(d) > 0 {
		t.Errorf("left: %v", d)
	}
}

// TestKillAllRereads: a reading of /proc that misses a live process (one
// forked while it was read, whose parent then exited) does not end the
// killing: KillAll reads again until the process has no child left.
func TestKillAllRereads(t *testing.T) {
	if err := Become(); err != nil {
		t.Fatal(err)
	}
	ready, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	script := `sleep 1000 & echo ready; wait`
	pid, err := syscall.ForkExec("/bin/sh", []string{"sh", "-c", script}, &syscall.ProcAttr{
		Env: os.Environ(), Files: []uintptr{0, w.Fd(), 2},
	})
	w.Close()
	if err != nil {
		t.Fatal(err)
	}
	r := Start(pid)
	if b, _ := io.ReadAll(io.LimitReader(ready, 6)); string(b) != "ready\n" {
		t.Fatalf("read %q", b)
	}
	missed := false
	r.scan = func(pid int) []Process {
		if !missed {
			missed = true
			return nil // the reading that came too early
		}
		return Descendants(pid)
	}
	killed, survivors := r.KillAll(time.Now().Add(5 * time.Second))
	if len(killed) != 2 || len(survivors) > 0 {
		t.Errorf("killed %v, survivors %v", killed, survivors)
	}
	if d := Descendants(os.Getpid()); len(d) > 0 {
		for _, p := range d {
			_ = syscall.Kill(p.PID, syscall.SIGKILL)
		}
		t.Errorf("left alive: %v", d)
	}
	<-r.AllGone()
}
