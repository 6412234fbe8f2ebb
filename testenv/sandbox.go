package testenv

import (
	"fmt"
	"os"
	"testing"

	"platform/sandbox"
)

// sandboxChildEnv marks a test binary started as a sandbox child.
const sandboxChildEnv = "PLATFORM_TEST_SANDBOX_CHILD"

// SandboxMain is the TestMain of packages whose tests run user code on a
// test platform: the platform's sandbox children are the test binary
// itself, which then serves the child protocol instead of running tests.
func SandboxMain(m *testing.M) {
	if os.Getenv(sandboxChildEnv) == "1" {
		if err := sandbox.ServeChild(os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}
