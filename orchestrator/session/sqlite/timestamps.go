package sqlite

import "time"

// Times are stored as INTEGER nanoseconds since the Unix epoch, UTC, which
// round-trips every time between the years 1678 and 2262 exactly.

// stamp is t as stored; a zero t means now.
func stamp(t time.Time) int64 {
	if t.IsZero() {
		t = time.Now()
	}
	return t.UnixNano()
}

// unstamp is a stored time, in UTC.
func unstamp(ns int64) time.Time { return time.Unix(0, ns).UTC() }

// unstampNull is a stored time that may be NULL (the zero time).
func unstampNull(ns *int64) time.Time {
	if ns == nil {
		return time.Time{}
	}
	return unstamp(*ns)
}
