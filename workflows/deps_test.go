package workflows_test

import (
	"errors"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestWorkflowCodeDependsOnTheContractOnly: workflow code reaches
// activities, modules, the API and its HTTP server only through the
// contract's names, so none of their code (nor its non-determinism) is
// within its reach; and the contract imports nothing of the platform, so
// every part may import it. `go list -deps` is what the compiler links.
func TestWorkflowCodeDependsOnTheContractOnly(t *testing.T) {
	t.Parallel()
	forbidden := []string{"github.com/gin-gonic/gin", "platform/api", "platform/activities", "platform/modules", "platform/worker"}
	for _, dep := range deps(t, ".") {
		for _, f := range forbidden {
			require.False(t, dep == f || strings.HasPrefix(dep, f+"/"), "package workflows depends on %s", dep)
		}
	}
	for _, dep := range deps(t, "./contract") {
		require.False(t, strings.HasPrefix(dep, "platform/") && dep != "platform/workflows/contract",
			"package contract depends on %s", dep)
	}
}

// deps lists the packages pkg depends on, itself included.
func deps(t *testing.T, pkg string) []string {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", pkg).Output()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		t.Fatalf("go list -deps %s: %v\n%s", pkg, err, exit.Stderr)
	}
	require.NoError(t, err, "go list -deps %s", pkg)
	return strings.Fields(string(out))
}
