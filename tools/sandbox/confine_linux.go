//go:build linux

package sandbox

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/sys/unix"

	"lathe/tools/sandbox/internal/guard"
	"lathe/tools/sandbox/internal/landlock"
	"lathe/tools/sandbox/internal/seccomp"
)

// devices stay writable in every mode: writing to them changes nothing.
var devices = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom"}

// confinement is what the side thread applies to itself before it starts
// bash.
type confinement struct {
	ruleset int // Landlock ruleset, built beforehand
	filter  seccomp.Config
}

// prepare builds the confinement p asks for, or nil for Mode Off. It
// refuses, wrapping ErrUnsupported, when the kernel cannot enforce it:
// the helper never runs a command less confined than asked.
func prepare(p Policy) (*confinement, error) {
	if p.Mode == Off {
		return nil, nil
	}
	s := probe()
	if !s.Confines() {
		return nil, fmt.Errorf("%w: %s", ErrUnsupported, s.Reason)
	}
	fd, err := rulesetFor(p, s.LandlockABI).Create()
	if err != nil {
		return nil, err
	}
	return &confinement{ruleset: fd, filter: seccomp.Config{
		DenySockets:  !p.Network,
		DenyConnect:  !p.Network && s.LandlockABI < 9,
		Notify:       s.SeccompNotify,
		Privileged:   privileged(),
		DenyTruncate: s.LandlockABI < 3,
		Supervisor:   os.Getpid(),
	}}, nil
}

// apply confines the calling thread. It returns the seccomp listener, or
// -1 when the kernel would not give one (then refused sockets fail with
// EACCES unseen).
func (c *confinement) apply() (int, error) {
	dropCapabilities()
	if err := landlock.RestrictThread(c.ruleset); err != nil {
		return -1, err
	}
	c.filter.Thread = unix.Gettid()
	prog, err := c.filter.Program()
	if err != nil {
		return -1, err
	}
	listener, err := seccomp.Install(prog, c.filter.Notify)
	if err != nil && c.filter.Notify {
		// A filter with a listener is already in place (lathe itself runs
		// sandboxed): a second one is refused.
		c.filter.Notify = false
		if prog, err = c.filter.Program(); err == nil {
			listener, err = seccomp.Install(prog, false)
		}
	}
	return listener, err
}

// droppedCaps are capabilities a root command could use around the
// sandbox. CAP_SYS_ADMIN and CAP_PERFMON let a process read another's
// memory maps and environment (/proc/pid/environ) even when an LSM
// refuses it (mm_access); CAP_SYS_PTRACE lets it trace the helper's
// confining thread, which shares its Landlock domain; the others act on
// the machine rather than files.
var droppedCaps = []uintptr{
	unix.CAP_SYS_ADMIN, unix.CAP_PERFMON, unix.CAP_SYS_PTRACE, unix.CAP_BPF,
	unix.CAP_SYS_MODULE, unix.CAP_SYS_RAWIO, unix.CAP_SYS_BOOT, unix.CAP_SYS_TIME,
	unix.CAP_MKNOD, unix.CAP_NET_ADMIN, unix.CAP_NET_RAW, unix.CAP_LINUX_IMMUTABLE,
	unix.CAP_SETFCAP, unix.CAP_MAC_ADMIN, unix.CAP_MAC_OVERRIDE, unix.CAP_AUDIT_CONTROL,
	unix.CAP_SYSLOG, unix.CAP_SYS_PACCT, unix.CAP_SYS_TTY_CONFIG, unix.CAP_CHECKPOINT_RESTORE,
}

// dropCapabilities takes droppedCaps out of the calling thread's bounding
// set, so that no program it runs, root's included, gets them back. A
// process without CAP_SETPCAP has none of them to lose.
func dropCapabilities() {
	for _, c := range droppedCaps {
		_ = unix.Prctl(unix.PR_CAPBSET_DROP, c, 0, 0, 0)
	}
}

// rulesetFor is p in Landlock rules: read everywhere but the denied
// paths; write (in WorkspaceWrite) beneath the workspace and the writable
// directories, but the denied paths; no port ever.
func rulesetFor(p Policy, abi int) landlock.Ruleset {
	rs := landlock.Ruleset{FS: landlock.HandledFS(abi), Scopes: landlock.HandledScopes(abi)}
	if p.Network {
		rs.FS &^= landlock.ResolveUnix
		rs.Scopes &^= landlock.ScopeAbstractUnix
	} else {
		rs.Net = landlock.HandledNet(abi)
	}
	var deny []string
	for _, d := range p.ReadDeny {
		deny = append(deny, realPaths(d)...)
	}
	rs.Rules = landlock.Grant("/", landlock.Read, deny)
	for _, d := range devices {
		rs.Rules = append(rs.Rules, landlock.Rule{Path: d, Access: landlock.WriteFile | landlock.Truncate})
	}
	if p.Mode == WorkspaceWrite {
		for _, w := range p.writableRoots() {
			kept := slices.Clone(deny)
			for _, k := range p.keptReadOnly(w) {
				kept = append(kept, realPaths(k)...)
			}
			if real, err := filepath.EvalSymlinks(w); err == nil {
				w = real
			}
			rs.Rules = append(rs.Rules, landlock.Grant(filepath.Clean(w), landlock.Write, kept)...)
		}
	}
	return rs
}

// realPaths is path, and where it leads when that is elsewhere.
func realPaths(path string) []string {
	path = filepath.Clean(path)
	if real, err := filepath.EvalSymlinks(path); err == nil && real != path {
		return []string{path, real}
	}
	return []string{path}
}

// protectedPaths places each protected path beneath the writable directory
// that holds it; one that none holds cannot be changed and needs no guard.
// A protected path that holds others (.git) is shallow: kept what it is,
// a directory, while those in it are kept whole.
func protectedPaths(p Policy) []guard.Path {
	roots := p.writableRoots()
	var out []guard.Path
	for _, prot := range p.Protected {
		best := ""
		for _, r := range roots {
			if within(prot, r) && len(r) > len(best) {
				best = r
			}
		}
		if best == "" {
			continue
		}
		rel, err := filepath.Rel(best, prot)
		if err != nil || rel == "." {
			continue
		}
		out = append(out, guard.Path{Root: best, Rel: rel, Shallow: p.holdsProtected(prot)})
	}
	return out
}

// privileged reports whether the helper has any capability (root has
// them all), which would let a command change the ownership and
// attributes of files Landlock keeps it from writing.
func privileged() bool {
	if os.Geteuid() == 0 {
		return true
	}
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return true
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "CapEff:"); ok {
			return strings.Trim(strings.TrimSpace(v), "0") != ""
		}
	}
	return true
}
