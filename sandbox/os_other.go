//go:build !linux

package sandbox

import (
	"errors"
	"syscall"
)

// The hard memory limit needs Linux (/proc and RLIMIT_AS semantics); the
// platform only runs user code on Linux.
var errNotLinux = errors.New("the sandbox memory limit needs Linux")

func addressSpace() (int64, error) { return 0, errNotLinux }

func setAddressSpaceLimit(uint64) error { return errNotLinux }

func childAttr() *syscall.SysProcAttr { return nil }
