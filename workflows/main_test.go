package workflows_test

import (
	"testing"

	"platform/test/testenv"
)

// The test binary serves as the sandbox child (testenv.SandboxMain), so
// pipeline tests run transforms and functions in real child processes
// without building the platform binary.
func TestMain(m *testing.M) { testenv.SandboxMain(m, closeSandbox) }
