package testenv

import (
	"fmt"
	"os"
	"testing"

	"platform/sandbox"
)

// SandboxChildEnv=1 marks a test binary started as a sandbox child.
const SandboxChildEnv = "PLATFORM_TEST_SANDBOX_CHILD"

// SandboxMain is the TestMain of packages whose tests run user code on a
// test platform: the platform's sandbox children are the test binary
// itself, which then serves the child protocol instead of running tests.
// after runs once the tests have (closing a package's own pools).
func SandboxMain(m *testing.M, after ...func()) {
	if os.Getenv(SandboxChildEnv) == "1" {
		if err := sandbox.ServeChild(os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	code := m.Run()
	for _, f := range after {
		f()
	}
	os.Exit(code)
}
