//go:build !linux

package sandbox

import "runtime"

func probe() Support {
	return Support{Reason: "the sandbox needs Linux, not " + runtime.GOOS}
}
