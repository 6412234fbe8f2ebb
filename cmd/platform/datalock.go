package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"platform/kernel/settings"
)

// The data directory belongs to one process (platform dev or infra): its
// SQLite store, Temporal's file and the key file must not be opened by
// two servers at once. The process takes an exclusive lock on
// <data>/platform.lock before it starts anything, and writes into the file
// its process id and, once started, its embedded servers' addresses
// (which admin commands use: a port may have been picked at start).
// Admin commands (token, backup, ...) take no lock: while dev runs they
// talk to it over <data>/admin.sock.
const lockFile = "platform.lock"

// dataLock is a held lock on a data directory.
type dataLock struct{ f *os.File }

// lockDataDir takes the lock, or fails at once naming the process that
// holds it.
func lockDataDir(dir string) (*dataLock, error) {
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return nil, fmt.Errorf("data directory %s (PLATFORM_DATA): %w", dir, err)
	}
	path := filepath.Join(dir, lockFile)
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("data directory lock %s: %w", path, err)
	}
	if err := flock(f); err != nil {
		f.Close()
		holder := "another process"
		if pid := lockInfo(dir)["pid"]; pid != "" {
			holder = "process " + pid
		}
		return nil, fmt.Errorf("data directory %s is in use by %s (lock %s): stop it, or give this one another directory (PLATFORM_DATA, --data)",
			dir, holder, path)
	}
	l := &dataLock{f: f}
	return l, l.note(map[string]string{"pid": strconv.Itoa(os.Getpid())})
}

// noteServers adds the embedded servers' addresses to the lock file.
func (l *dataLock) noteServers(e *embeddedServers, cfg *settings.Config) error {
	if l == nil {
		return nil
	}
	info := map[string]string{"pid": strconv.Itoa(os.Getpid())}
	if e.temporal != nil {
		info["temporal"] = cfg.TemporalAddress
	}
	if e.ferret != nil {
		info["store"] = cfg.MongoURI
	}
	return l.note(info)
}

// note replaces what the lock file says.
func (l *dataLock) note(info map[string]string) error {
	var b strings.Builder
	for _, k := range []string{"pid", "temporal", "store"} {
		if v := info[k]; v != "" {
			fmt.Fprintf(&b, "%s %s\n", k, v)
		}
	}
	if err := l.f.Truncate(0); err != nil {
		return err
	}
	_, err := l.f.WriteAt([]byte(b.String()), 0)
	return err
}

// release ends the lock (closing the file drops it; the process's end
// does too, whatever killed it).
func (l *dataLock) release() {
	if l != nil {
		_ = l.f.Close()
	}
}

// lockInfo reads what the lock file of dir says ("pid", "temporal",
// "store").
func lockInfo(dir string) map[string]string {
	out := map[string]string{}
	f, err := os.Open(filepath.Join(dir, lockFile))
	if err != nil {
		return out
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), " "); ok {
			out[k] = v
		}
	}
	return out
}

// usesDataDir says whether a server role keeps anything in the data
// directory: the embedded store or Temporal (the key file goes with the
// embedded store).
func usesDataDir(cfg *settings.Config) bool { return cfg.MongoURI == "" || cfg.TemporalAddress == "" }

// devStore is the embedded FerretDB an admin command opens: the one of
// the process holding the data directory (its port may have been picked
// at start), else the address PLATFORM_STORE_ADDR names.
func devStore(cfg *settings.Config) string {
	if uri := lockInfo(cfg.DataDir)["store"]; uri != "" && lockHeld(cfg.DataDir) {
		return uri
	}
	return "mongodb://" + cfg.StoreAddr + "/"
}

// devTemporal is the Temporal an admin command dials: TEMPORAL_ADDRESS,
// else the embedded one of the dev or infra process holding the data
// directory (its port may have been picked at start), else the port
// PLATFORM_TEMPORAL_PORT names.
func devTemporal(cfg *settings.Config) string {
	if cfg.TemporalAddress != "" {
		return cfg.TemporalAddress
	}
	if addr := lockInfo(cfg.DataDir)["temporal"]; addr != "" && lockHeld(cfg.DataDir) {
		return addr
	}
	return fmt.Sprintf("127.0.0.1:%d", cfg.TemporalPort)
}
