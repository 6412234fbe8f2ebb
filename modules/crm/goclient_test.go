package crm_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"platform/test/testenv"
)

// TestGeneratedGoClient generates a Go client from the live CRM module
// document with oapi-codegen (a tool of go.mod), compiles it with the
// round trip program of test/goclient and runs it: create, get and list a
// consumer through the generated methods (named after the operationIds).
func TestGeneratedGoClient(t *testing.T) {
	f := newFixture(t)
	goBin, err := exec.LookPath("go")
	require.NoError(t, err, "go is needed to build the generated client")
	root, err := testenv.ModuleRoot()
	require.NoError(t, err)
	// Inside the module, so that the program builds with go.mod's
	// dependencies; a dot directory is outside ./... for everything else.
	dir, err := os.MkdirTemp(filepath.Join(root, "test", "goclient"), ".gen-")
	require.NoError(t, err)
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	require.NoError(t, os.WriteFile(filepath.Join(dir, "crm.json"), fetchDocument(t, f.P.URL+"/crm/openapi.json"), 0o644))
	program, err := os.ReadFile(filepath.Join(root, "test", "goclient", "roundtrip.go.txt"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "main.go"), program, 0o644))

	runGo(t, root, goBin, nil, "tool", "oapi-codegen", "-generate", "types,client", "-package", "main",
		"-o", filepath.Join(dir, "client.gen.go"), filepath.Join(dir, "crm.json"))
	email := uniqueEmail("go-client")
	out := runGo(t, root, goBin, []string{"BASE_URL=" + f.P.URL + "/crm", "TOKEN=" + f.Admin, "EMAIL=" + email},
		"run", "./"+filepath.Join("test", "goclient", filepath.Base(dir)))

	var result struct {
		CreatedStatus int            `json:"createdStatus"`
		ID            string         `json:"id"`
		Got           map[string]any `json:"got"`
		Listed        []string       `json:"listed"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &result), out)
	require.Equal(t, 201, result.CreatedStatus)
	require.Equal(t, result.ID, result.Got["_id"])
	require.Equal(t, email, result.Got["email"])
	require.Equal(t, "HR", result.Got["country"])
	require.Equal(t, "+38512345678", result.Got["phone"])
	require.Equal(t, []string{result.ID}, result.Listed)
	require.Equal(t, email, f.Stored("consumers", result.ID)["email"], "the client's create reached the store")
}

func runGo(t *testing.T, dir, goBin string, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command(goBin, args...)
	cmd.Dir, cmd.Env = dir, append(os.Environ(), env...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "go %s: %s%s", strings.Join(args, " "), out, stderr.String())
	return string(out)
}
