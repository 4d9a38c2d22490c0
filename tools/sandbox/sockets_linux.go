//go:build linux

package sandbox

import (
	"bytes"
	"fmt"
	"strings"

	"golang.org/x/sys/unix"
)

// How refused sockets and connects are told in the report.

var (
	families = map[uint64]string{
		unix.AF_UNIX: "AF_UNIX", unix.AF_INET: "AF_INET", unix.AF_INET6: "AF_INET6",
		unix.AF_PACKET: "AF_PACKET", unix.AF_VSOCK: "AF_VSOCK", unix.AF_NETLINK: "AF_NETLINK",
		unix.AF_BLUETOOTH: "AF_BLUETOOTH", unix.AF_ALG: "AF_ALG",
	}
	sockTypes = map[uint64]string{
		unix.SOCK_STREAM: "SOCK_STREAM", unix.SOCK_DGRAM: "SOCK_DGRAM", unix.SOCK_RAW: "SOCK_RAW",
		unix.SOCK_SEQPACKET: "SOCK_SEQPACKET",
	}
)

// socketTarget describes a socket(2) call: "socket(AF_INET, SOCK_DGRAM)".
func socketTarget(family, typ uint64) string {
	t, ok := sockTypes[typ&0xf]
	if !ok {
		t = fmt.Sprintf("type %d", typ&0xf)
	}
	return "socket(" + familyName(family) + ", " + t + ")"
}

func familyName(family uint64) string {
	if f, ok := families[family&0xffffffff]; ok {
		return f
	}
	return fmt.Sprintf("family %d", family&0xffffffff)
}

// peerAddress reads the address a process passes to connect(2) from its
// memory, for the report only: the call is refused whatever it says.
func peerAddress(pid int, ptr, size uint64) string {
	size = min(size, unix.SizeofSockaddrUnix)
	if size < 2 {
		return "an unreadable address"
	}
	buf := make([]byte, size)
	local := []unix.Iovec{{Base: &buf[0], Len: size}}
	remote := []unix.RemoteIovec{{Base: uintptr(ptr), Len: int(size)}}
	n, err := unix.ProcessVMReadv(pid, local, remote, 0)
	if err != nil || n < 2 {
		return "an unreadable address"
	}
	buf = buf[:n]
	family := uint64(buf[0]) | uint64(buf[1])<<8
	if family != unix.AF_UNIX {
		return "an " + familyName(family) + " address"
	}
	path := buf[2:]
	if len(path) > 0 && path[0] == 0 {
		return "@" + string(bytes.TrimRight(path[1:], "\x00")) // abstract
	}
	if i := bytes.IndexByte(path, 0); i >= 0 {
		path = path[:i]
	}
	return string(path)
}

// quietAddress reports the sockets glibc tries for user and host lookups
// (nscd, systemd's userdb), which fall back to files when refused:
// refusing them is no news.
func quietAddress(addr string) bool {
	return addr == "/var/run/nscd/socket" || addr == "/run/nscd/socket" ||
		strings.HasPrefix(addr, "/run/systemd/userdb/")
}
