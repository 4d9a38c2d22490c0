//go:build linux

// Package reaper makes the calling process the parent of last resort of
// everything a command starts, then kills and reaps all of it.
//
// It relies on PR_SET_CHILD_SUBREAPER: a process whose parent dies is
// handed to the nearest subreaper among its ancestors instead of init, so
// setsid, nohup and double forks cannot leave the tree. Descendants are
// found by reading /proc; nothing is counted as killed unless a SIGKILL
// was delivered to it and it was gone afterwards.
package reaper

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// Process is a process the reaper found.
type Process struct {
	PID  int    `json:"pid"`
	Name string `json:"name"`
}

// Reaper waits for every child of the process, adopted ones included.
type Reaper struct {
	main     int
	mainDone chan struct{}
	status   unix.WaitStatus
	allGone  chan struct{}

	mu     sync.Mutex
	exited map[int]bool // reaped children that ended on their own

	// scan lists the live descendants of a process (Descendants).
	scan func(pid int) []Process
}

// Become makes the calling process a child subreaper.
func Become() error {
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_SET_CHILD_SUBREAPER): %w", err)
	}
	return nil
}

// Start reaps every child of the process from now on; main is the child
// whose status matters. The process must not wait for children any other
// way (os/exec included), or the two would steal each other's statuses.
func Start(main int) *Reaper {
	r := &Reaper{main: main, mainDone: make(chan struct{}), allGone: make(chan struct{}), exited: map[int]bool{},
		scan: Descendants}
	go r.loop()
	return r
}

func (r *Reaper) loop() {
	defer close(r.allGone)
	for {
		var ws unix.WaitStatus
		pid, err := unix.Wait4(-1, &ws, 0, nil)
		switch {
		case errors.Is(err, unix.EINTR):
		case err != nil:
			// ECHILD: no children left. Every live descendant has an
			// ancestor among the children (orphans come here), so none
			// is left anywhere.
			return
		case pid == r.main:
			r.status = ws
			close(r.mainDone)
		default:
			r.mu.Lock()
			r.exited[pid] = !ws.Signaled() || ws.Signal() != unix.SIGKILL
			r.mu.Unlock()
		}
	}
}

// MainDone is closed once the main child has exited.
func (r *Reaper) MainDone() <-chan struct{} { return r.mainDone }

// Status is the main child's wait status, valid once MainDone is closed.
func (r *Reaper) Status() unix.WaitStatus { return r.status }

// KillAll sends SIGKILL to every descendant of the process until none is
// left, waiting for each round to be reaped: until the process has no
// child at all, not until one reading of /proc finds none alive, which a
// process forked while /proc was read would escape (its parent, exiting,
// hands it to this one, but only after the reading). It gives up at deadline
// (a process stuck in the kernel cannot die until it returns). killed
// lists the processes it signalled that are gone, except those it reaped
// itself and saw end some other way (they exited just before the signal);
// survivors, the ones still there at the deadline.
func (r *Reaper) KillAll(deadline time.Time) (killed, survivors []Process) {
	self := os.Getpid()
	signalled := map[int]Process{}
	var order []int
	wait := time.Millisecond
	for {
		if !hasChildren() {
			// Every live descendant has an ancestor among the children
			// (orphans come here): none, none anywhere.
			break
		}
		// None alive may still leave children to reap, or one that
		// came after the reading: read again once they are reaped.
		live := r.scan(self)
		if time.Now().After(deadline) {
			survivors = live
			break
		}
		for _, p := range live {
			if unix.Kill(p.PID, unix.SIGKILL) != nil {
				continue
			}
			if _, ok := signalled[p.PID]; !ok {
				signalled[p.PID] = p
				order = append(order, p.PID)
			}
		}
		select {
		case <-r.allGone:
		case <-time.After(wait):
			wait = min(2*wait, 50*time.Millisecond)
		}
	}
	still := map[int]bool{}
	for _, p := range survivors {
		still[p.PID] = true
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, pid := range order {
		if !still[pid] && !r.exited[pid] {
			killed = append(killed, signalled[pid])
		}
	}
	return killed, survivors
}

// hasChildren reports whether the process has a child, running or not
// yet reaped, without reaping it.
func hasChildren() bool {
	var info unix.Siginfo
	err := unix.Waitid(unix.P_ALL, 0, &info, unix.WEXITED|unix.WSTOPPED|unix.WCONTINUED|unix.WNOHANG|unix.WNOWAIT, nil)
	return !errors.Is(err, unix.ECHILD)
}

// AllGone is closed once the process has no children left.
func (r *Reaper) AllGone() <-chan struct{} { return r.allGone }

// Descendants lists the live (not zombie) descendants of pid, parents
// before children.
func Descendants(pid int) []Process {
	d, err := os.Open("/proc")
	if err != nil {
		return nil
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	children := map[int][]Process{}
	for _, name := range names {
		p, err := strconv.Atoi(name)
		if err != nil {
			continue
		}
		ppid, comm, state, ok := stat(p)
		if ok && state != 'Z' && state != 'X' {
			children[ppid] = append(children[ppid], Process{PID: p, Name: comm})
		}
	}
	var out []Process
	queue := []int{pid}
	for len(queue) > 0 {
		next := children[queue[0]]
		queue = queue[1:]
		for _, c := range next {
			out = append(out, c)
			queue = append(queue, c.PID)
		}
	}
	return out
}

// stat reads the parent, name and state of pid from /proc/pid/stat:
// "pid (comm) state ppid ...", where comm may hold spaces and parentheses.
func stat(pid int) (ppid int, comm string, state byte, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, "", 0, false
	}
	return parseStat(b)
}

func parseStat(b []byte) (ppid int, comm string, state byte, ok bool) {
	open, end := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
	if open < 0 || end < open || end+4 > len(b) {
		return 0, "", 0, false
	}
	fields := bytes.Fields(b[end+1:])
	if len(fields) < 2 || len(fields[0]) != 1 {
		return 0, "", 0, false
	}
	ppid, err := strconv.Atoi(string(fields[1]))
	if err != nil {
		return 0, "", 0, false
	}
	return ppid, string(b[open+1 : end]), fields[0][0], true
}

// Name returns the command name of pid, or "" if it is gone.
func Name(pid int) string {
	_, comm, _, ok := stat(pid)
	if !ok {
		return ""
	}
	return comm
}
