package crm_test

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"platform/test/testenv"
)

// TestGeneratedTypeScriptClient generates a TypeScript client from the
// live CRM module document (openapi-typescript), type-checks a program
// using it with tsc, and runs it (openapi-fetch): create, get and list a
// consumer. It fails when the document changes so that generated clients
// break, which the document's own validation cannot see.
func TestGeneratedTypeScriptClient(t *testing.T) {
	f := newFixture(t)
	node, err := exec.LookPath("node")
	require.NoError(t, err, "node is needed to run the generated client")
	project := tsClientProject(t)
	dir := t.TempDir()
	for _, name := range []string{"roundtrip.ts", "tsconfig.json"} {
		b, err := os.ReadFile(filepath.Join(project, name))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), b, 0o644))
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"type":"module"}`), 0o644))
	require.NoError(t, os.Symlink(filepath.Join(project, "node_modules"), filepath.Join(dir, "node_modules")))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "crm.json"), fetchDocument(t, f.P.URL+"/crm/openapi.json"), 0o644))

	runNode(t, dir, node, nil, "node_modules/openapi-typescript/bin/cli.js", "crm.json", "-o", "crm.d.ts")
	runNode(t, dir, node, nil, "node_modules/typescript/bin/tsc", "-p", "tsconfig.json")
	email := uniqueEmail("ts-client")
	out := runNode(t, dir, node, []string{"BASE_URL=" + f.P.URL + "/crm", "TOKEN=" + f.Admin, "EMAIL=" + email}, "out/roundtrip.js")

	var result struct {
		CreatedStatus int               `json:"createdStatus"`
		ID            string            `json:"id"`
		Got           map[string]string `json:"got"`
		Listed        []string          `json:"listed"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &result), out)
	require.Equal(t, 201, result.CreatedStatus)
	require.Equal(t, map[string]string{"email": email, "country": "HR", "phone": "+38512345678"}, result.Got)
	require.Equal(t, []string{result.ID}, result.Listed)
	require.Equal(t, email, f.Stored("consumers", result.ID)["email"], "the client's create reached the store")
}

// tsClientProject is test/ts-client with its locked npm packages installed.
func tsClientProject(t *testing.T) string {
	root, err := testenv.ModuleRoot()
	require.NoError(t, err)
	dir := filepath.Join(root, "test", "ts-client")
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "openapi-typescript")); err != nil {
		install := exec.Command("bash", filepath.Join(dir, "install.sh"))
		install.Stdout, install.Stderr = os.Stderr, os.Stderr
		require.NoError(t, install.Run(), "npm ci in test/ts-client")
	}
	return dir
}

func runNode(t *testing.T, dir, node string, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command(node, args...)
	cmd.Dir, cmd.Env = dir, append(os.Environ(), env...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "node %s: %s%s", strings.Join(args, " "), out, stderr.String())
	return string(out)
}

func fetchDocument(t *testing.T, url string) []byte {
	res, err := http.Get(url)
	require.NoError(t, err)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	require.Equal(t, 200, res.StatusCode, "%s", b)
	return b
}
