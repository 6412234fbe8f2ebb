package sandbox

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
)

// addressSpace returns the process's mapped address space in bytes
// (the first field of /proc/self/statm, in pages).
func addressSpace() (int64, error) {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0, err
	}
	field, _, _ := bytes.Cut(b, []byte(" "))
	pages, err := strconv.ParseInt(string(field), 10, 64)
	if err != nil {
		return 0, err
	}
	return pages * int64(os.Getpagesize()), nil
}

func setAddressSpaceLimit(bytes uint64) error {
	return syscall.Setrlimit(syscall.RLIMIT_AS, &syscall.Rlimit{Cur: bytes, Max: bytes})
}

// childAttr kills a child whose parent died, so that a runaway regular
// expression cannot outlive the worker. (Linux sends it when the thread
// that started the child exits; Go threads live as long as the process
// unless a goroutine locked to one exits, which the pool never does.)
func childAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
