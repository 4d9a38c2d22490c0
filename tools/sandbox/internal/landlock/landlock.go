//go:build linux

// Package landlock builds a Landlock ruleset and enforces it on the calling
// thread only, so that a process can confine the one thread that starts a
// command and keep its other threads free.
//
// It talks to the kernel through golang.org/x/sys/unix. The go-landlock
// library enforces rulesets on every thread of the process (through psx,
// which is cgo when cgo is enabled), which is the opposite of what the
// sandbox helper needs.
package landlock

import (
	"errors"
	"fmt"
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Filesystem access rights (include/uapi/linux/landlock.h).
const (
	Execute     = unix.LANDLOCK_ACCESS_FS_EXECUTE
	WriteFile   = unix.LANDLOCK_ACCESS_FS_WRITE_FILE
	ReadFile    = unix.LANDLOCK_ACCESS_FS_READ_FILE
	ReadDir     = unix.LANDLOCK_ACCESS_FS_READ_DIR
	RemoveDir   = unix.LANDLOCK_ACCESS_FS_REMOVE_DIR
	RemoveFile  = unix.LANDLOCK_ACCESS_FS_REMOVE_FILE
	MakeChar    = unix.LANDLOCK_ACCESS_FS_MAKE_CHAR
	MakeDir     = unix.LANDLOCK_ACCESS_FS_MAKE_DIR
	MakeReg     = unix.LANDLOCK_ACCESS_FS_MAKE_REG
	MakeSock    = unix.LANDLOCK_ACCESS_FS_MAKE_SOCK
	MakeFifo    = unix.LANDLOCK_ACCESS_FS_MAKE_FIFO
	MakeBlock   = unix.LANDLOCK_ACCESS_FS_MAKE_BLOCK
	MakeSym     = unix.LANDLOCK_ACCESS_FS_MAKE_SYM
	Refer       = unix.LANDLOCK_ACCESS_FS_REFER    // ABI 2
	Truncate    = unix.LANDLOCK_ACCESS_FS_TRUNCATE // ABI 3
	IoctlDev    = unix.LANDLOCK_ACCESS_FS_IOCTL_DEV
	ResolveUnix = 1 << 16 // ABI 9: connect to and send on pathname Unix sockets

	// Read is what every readable path gets.
	Read = Execute | ReadFile | ReadDir
	// Write is what every writable directory gets: everything but making
	// device nodes and device ioctls, so that not even root can make a
	// raw disk appear in the workspace and write to it.
	Write = Read | WriteFile | RemoveDir | RemoveFile | MakeDir | MakeReg |
		MakeSock | MakeFifo | MakeSym | Refer | Truncate | ResolveUnix
	// fileRights are the rights that mean something on a file that is not
	// a directory; the kernel refuses a rule on a file with any other.
	fileRights = Execute | WriteFile | ReadFile | Truncate | IoctlDev
)

// Network access rights and scopes.
const (
	BindTCP    = unix.LANDLOCK_ACCESS_NET_BIND_TCP    // ABI 4
	ConnectTCP = unix.LANDLOCK_ACCESS_NET_CONNECT_TCP // ABI 4
	BindUDP    = 1 << 2                               // ABI 10
	SendUDP    = 1 << 3                               // ABI 10

	ScopeAbstractUnix = unix.LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET // ABI 6
	ScopeSignal       = unix.LANDLOCK_SCOPE_SIGNAL               // ABI 6
)

// errataSignalScope is the erratum fixing signal scoping between threads;
// a kernel without it is treated as ABI 5, as go-landlock does.
const errataSignalScope = 1 << 1

// ABI returns the Landlock ABI version of the running kernel, 0 when it
// has none (not built, not enabled at boot, or refused by a seccomp filter).
func ABI() int {
	v, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	if errno != 0 {
		return 0
	}
	abi := int(v)
	if abi >= 6 {
		errata, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_ERRATA)
		if errno != 0 || errata&errataSignalScope == 0 {
			abi = 5
		}
	}
	return abi
}

// HandledFS returns the filesystem rights an ABI version can restrict.
func HandledFS(abi int) uint64 {
	switch {
	case abi <= 0:
		return 0
	case abi == 1:
		return Refer - 1
	case abi == 2:
		return Truncate - 1
	case abi <= 4:
		return IoctlDev - 1
	case abi <= 8:
		return ResolveUnix - 1
	default:
		return ResolveUnix<<1 - 1
	}
}

// HandledNet returns the network rights an ABI version can restrict.
func HandledNet(abi int) uint64 {
	switch {
	case abi >= 10:
		return BindTCP | ConnectTCP | BindUDP | SendUDP
	case abi >= 4:
		return BindTCP | ConnectTCP
	}
	return 0
}

// HandledScopes returns the scopes an ABI version can restrict.
func HandledScopes(abi int) uint64 {
	if abi >= 6 {
		return ScopeAbstractUnix | ScopeSignal
	}
	return 0
}

// Rule grants Access beneath Path. NoFollow rules are for entries found
// while splitting a directory: a symlink there is never followed, so a
// link cannot carry a grant to its target.
type Rule struct {
	Path     string
	Access   uint64
	NoFollow bool
}

// Ruleset is what to restrict (the handled rights) and what to allow.
// Network ports are never allowed: when the network is granted, it is not
// handled at all.
type Ruleset struct {
	FS, Net, Scopes uint64
	Rules           []Rule
}

type rulesetAttr struct{ fs, net, scoped uint64 }

type pathBeneathAttr struct {
	allowed uint64
	fd      int32
} // packed in C: the kernel reads the first 12 bytes

// Create makes the kernel ruleset and returns its file descriptor, to be
// enforced with RestrictThread and then closed. Rules whose path does not
// exist or cannot be opened are skipped: nothing is granted there.
func (rs Ruleset) Create() (int, error) {
	attr := rulesetAttr{fs: rs.FS, net: rs.Net, scoped: rs.Scopes}
	fd, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), unsafe.Sizeof(attr), 0)
	if errno != 0 {
		return -1, fmt.Errorf("landlock_create_ruleset: %w", errno)
	}
	for _, r := range rs.Rules {
		if err := addRule(int(fd), r, rs.FS); err != nil {
			unix.Close(int(fd))
			return -1, err
		}
	}
	return int(fd), nil
}

func addRule(ruleset int, r Rule, handled uint64) error {
	flags := unix.O_PATH | unix.O_CLOEXEC
	if r.NoFollow {
		flags |= unix.O_NOFOLLOW
	}
	fd, err := unix.Open(r.Path, flags, 0)
	if err != nil {
		return nil // nothing there to grant
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil
	}
	access := r.Access & handled
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFDIR:
	case unix.S_IFLNK:
		return nil
	default:
		access &= fileRights
	}
	if access == 0 {
		return nil
	}
	attr := pathBeneathAttr{allowed: access, fd: int32(fd)}
	_, _, errno := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, uintptr(ruleset), unix.LANDLOCK_RULE_PATH_BENEATH, uintptr(unsafe.Pointer(&attr)), 0, 0, 0)
	if errno != 0 {
		return fmt.Errorf("landlock_add_rule %s: %w", r.Path, errno)
	}
	return nil
}

// RestrictThread enforces the ruleset on the calling thread, which the
// caller must have locked with runtime.LockOSThread and must never hand
// back to the Go scheduler: it sets no_new_privs on the thread too. Threads
// and processes the thread starts afterwards inherit the restriction.
func RestrictThread(ruleset int) error {
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_SET_NO_NEW_PRIVS): %w", err)
	}
	_, _, errno := unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, uintptr(ruleset), 0, 0)
	if errno != 0 {
		return fmt.Errorf("landlock_restrict_self: %w", errno)
	}
	return nil
}

// ErrNotDir is returned by Grant for a root that is not a directory.
var ErrNotDir = errors.New("not a directory")

// Grant returns the rules that give access beneath root, except beneath
// each path in deny. Landlock rights only add up, so a denied path cannot
// be cut out of a grant: instead each directory on the way down to it is
// split, its entries granted one by one and the denied one left out.
// Those directories keep ReadDir alone (their names, and the names inside
// the denied entry, can be listed; nothing else there can be read,
// written or created), and an entry that appears in them later is not
// covered. Symlinks met while splitting are skipped: what they point to is
// covered, or not, where it lives.
func Grant(root string, access uint64, deny []string) []Rule {
	var rules []Rule
	grant(root, access, deny, false, &rules)
	return rules
}

func grant(path string, access uint64, deny []string, noFollow bool, rules *[]Rule) {
	below := false
	for _, d := range deny {
		if within(path, d) {
			return
		}
		if within(d, path) {
			below = true
		}
	}
	if !below {
		*rules = append(*rules, Rule{Path: path, Access: access, NoFollow: noFollow})
		return
	}
	*rules = append(*rules, Rule{Path: path, Access: access & ReadDir, NoFollow: noFollow})
	entries, err := os.ReadDir(path)
	if err != nil {
		return
	}
	for _, e := range entries {
		if e.Type()&os.ModeSymlink != 0 {
			continue
		}
		grant(join(path, e.Name()), access, deny, true, rules)
	}
}

// within reports whether path is dir or lies beneath it (both clean and
// absolute).
func within(path, dir string) bool {
	if dir == "/" {
		return true
	}
	return path == dir || len(path) > len(dir) && path[len(dir)] == '/' && path[:len(dir)] == dir
}

func join(dir, name string) string {
	if dir == "/" {
		return "/" + name
	}
	return dir + "/" + name
}
