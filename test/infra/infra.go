// Package infra gives tests the shared infrastructure: a MongoDB-wire
// store and a Temporal server, from MONGODB_URI and TEMPORAL_ADDRESS (make
// test starts them once with `platform infra`), or, when those are unset,
// by starting `platform infra` as a child process of the test binary, and
// a fresh store of either kind per test. It imports no part of the
// platform beyond the store, so the tests of a package the composition
// root imports (a module's service) can use it without an import cycle;
// package testenv builds the whole platform on it.
package infra

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Addresses of the shared infrastructure.
type Addresses struct {
	MongoURI        string
	TemporalAddress string
}

var (
	infraOnce sync.Once
	infra     Addresses
	infraErr  error
)

// Infra returns the store and Temporal addresses, starting `platform infra`
// once per test binary if the environment names none.
func Infra(t testing.TB) Addresses {
	t.Helper()
	infraOnce.Do(func() {
		infra = Addresses{MongoURI: os.Getenv("MONGODB_URI"), TemporalAddress: os.Getenv("TEMPORAL_ADDRESS")}
		if infra.MongoURI != "" && infra.TemporalAddress != "" {
			return
		}
		infra, infraErr = startInfra()
	})
	if infraErr != nil {
		t.Fatalf("test infrastructure: %v", infraErr)
	}
	return infra
}

// ModuleRoot finds the directory holding go.mod.
func ModuleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod above the working directory")
		}
		dir = parent
	}
}

// PlatformBinary builds cmd/platform once per module checkout (serialized by
// a file lock across concurrently running test binaries) and returns its path.
func PlatformBinary() (string, error) {
	if p := os.Getenv("PLATFORM_BIN"); p != "" {
		return p, nil
	}
	root, err := ModuleRoot()
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(root))
	dir := filepath.Join(os.TempDir(), "platform-testenv-"+hex.EncodeToString(sum[:6]))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	lock, err := os.OpenFile(filepath.Join(dir, "build.lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return "", err
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return "", err
	}
	defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN) //nolint:errcheck
	bin := filepath.Join(dir, "platform")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/platform")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("build platform: %v\n%s", err, out)
	}
	return bin, nil
}

// startInfra runs `platform infra` on free ports; the child exits when this
// process does (its stdin closes).
func startInfra() (Addresses, error) {
	bin, err := PlatformBinary()
	if err != nil {
		return Addresses{}, err
	}
	data, err := os.MkdirTemp("", "platform-infra-")
	if err != nil {
		return Addresses{}, err
	}
	envFile := filepath.Join(data, "env")
	cmd := exec.Command(bin, "infra", "--data", data, "--store-addr", "127.0.0.1:0", "--temporal-port", "0",
		"--temporal-ui-port", "off", "--exit-with-stdin", "--env-file", envFile, "--log-level", "error")
	cmd.Stdout = io.Discard
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return Addresses{}, err
	}
	keepOpen = stdin // closed only when this process exits
	if err := cmd.Start(); err != nil {
		return Addresses{}, err
	}
	deadline := time.Now().Add(90 * time.Second)
	for time.Now().Before(deadline) {
		if a, ok := readEnvFile(envFile); ok {
			return a, nil
		}
		if cmd.ProcessState != nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	_ = cmd.Process.Kill()
	return Addresses{}, fmt.Errorf("platform infra did not become ready")
}

// keepOpen holds the child's stdin for the life of the test binary: when it
// is collected or the process exits, the pipe closes and the child stops.
//
//lint:ignore U1000 written only, on purpose: the reference keeps the pipe open
var keepOpen io.WriteCloser

func readEnvFile(path string) (Addresses, bool) {
	f, err := os.Open(path)
	if err != nil {
		return Addresses{}, false
	}
	defer f.Close()
	var a Addresses
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, _ := strings.Cut(sc.Text(), "=")
		switch k {
		case "MONGODB_URI":
			a.MongoURI = v
		case "TEMPORAL_ADDRESS":
			a.TemporalAddress = v
		}
	}
	return a, a.MongoURI != "" && a.TemporalAddress != ""
}
