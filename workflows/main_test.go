package workflows_test

import (
	"fmt"
	"os"
	"testing"

	"platform/sandbox"
)

// sandboxChildEnv turns the test binary into a sandbox child (as in
// package sandbox's tests), so pipeline tests run transforms and functions
// in real child processes without building the platform binary.
const sandboxChildEnv = "WORKFLOWS_TEST_SANDBOX_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(sandboxChildEnv) == "1" {
		if err := sandbox.ServeChild(os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	code := m.Run()
	closeSandbox()
	os.Exit(code)
}
