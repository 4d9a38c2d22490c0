//go:build !(aix || darwin || dragonfly || freebsd || linux || netbsd || openbsd || solaris || zos)

package cli

// holdKeys does nothing where the terminal's modes are not set this way.
func holdKeys(any) (release func()) { return func() {} }
