package sqlite

import (
	"bytes"
	"os"
	"strconv"
)

// startTime is when process pid started, in clock ticks since boot (field
// 22 of /proc/PID/stat); 0 when it cannot be read. With the pid it tells
// a process apart from a later one given the same pid.
func startTime(pid int) int64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	// The command name, field 2, is in parentheses and may hold spaces or
	// parentheses itself: the fields after it start after the last ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0
	}
	fields := bytes.Fields(b[i+1:])
	const field = 22 - 3 // fields[0] is field 3
	if len(fields) <= field {
		return 0
	}
	n, err := strconv.ParseInt(string(fields[field]), 10, 64)
	if err != nil {
		return 0
	}
	return n
}
