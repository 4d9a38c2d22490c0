package session

import (
	"fmt"
	"time"
)

// InUseError is the error for a session another lathe process is using:
// a session is used by one process at a time.
type InUseError struct {
	ID     string
	Holder Holder
}

// Holder is the process using a session.
type Holder struct {
	PID   int
	Host  string // empty when it is this machine
	Since time.Time
}

func (e *InUseError) Error() string {
	where := fmt.Sprintf("pid %d", e.Holder.PID)
	if e.Holder.Host != "" {
		where += " on " + e.Holder.Host
	}
	return fmt.Sprintf("session %s is in use by another lathe (%s, since %s)", e.ID, where,
		e.Holder.Since.Local().Format("15:04 Jan 2"))
}
