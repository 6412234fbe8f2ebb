package oauth_test

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"platform/test/testenv"
)

// TestOAuth4WebAPIClient runs an independent client, oauth4webapi under
// Node, through discovery, PKCE, the code exchange, RFC 9068 access-token
// validation, userinfo, refresh with rotation, reuse and revocation; this
// test plays the user at the consent screen.
func TestOAuth4WebAPIClient(t *testing.T) {
	t.Parallel()
	node := nodePath(t)
	root, err := testenv.ModuleRoot()
	require.NoError(t, err)
	dir := filepath.Join(root, "test", "oauth-node")
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "oauth4webapi")); err != nil {
		install := exec.Command("bash", filepath.Join(dir, "install.sh"))
		install.Stdout, install.Stderr = os.Stderr, os.Stderr
		require.NoError(t, install.Run(), "npm ci in test/oauth-node")
	}

	p := testenv.NewPlatform(t, testenv.Options{})
	app := registerApp(t, p, false, "crm.*", "profile", "email")
	cmd := exec.Command(node, "flow.mjs")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "ISSUER="+p.URL, "AUDIENCE="+p.URL, "REDIRECT_URI="+app.Redirect,
		"CLIENT_ID="+app.ClientID, "CLIENT_SECRET="+app.Secret, "SCOPE=crm.consumers.view crm.notes.* profile email")
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-done:
		case <-time.After(90 * time.Second):
			_ = cmd.Process.Kill()
		}
	}()

	result := driveNode(t, p, stdout, stdin)
	require.NoError(t, cmd.Wait(), "node: %s", stderr.String())
	require.NotNil(t, result, "node printed no result: %s", stderr.String())

	require.Equal(t, p.URL, result["issuer"])
	require.Equal(t, "bearer", strings.ToLower(result["token_type"].(string)))
	require.EqualValues(t, 3600, result["expires_in"])
	require.Equal(t, "crm.consumers.view crm.notes.create crm.notes.delete crm.notes.edit crm.notes.view profile email", result["scope"])
	claims := result["claims"].(map[string]any)
	require.Equal(t, p.Admin.ID, claims["sub"])
	require.Equal(t, app.ClientID, claims["client_id"])
	require.Equal(t, p.Customer.ID, claims["customer"])
	info := result["userinfo"].(map[string]any)
	require.Equal(t, p.Admin.Email, info["email"])
	require.Equal(t, true, result["rotated"])
	require.Equal(t, result["scope"], result["refreshed_scope"])
	require.Equal(t, "invalid_grant", result["reuse_error"])
	require.Equal(t, 401, p.Do("GET", "/crm/consumers", result["refreshed_access_token"].(string), nil).Status, "reuse revoked the family")
	require.Equal(t, 401, p.Do("GET", "/crm/consumers", result["revoked_access_token"].(string), nil).Status, "revoked through RFC 7009")
}

// driveNode answers each authorization URL the script prints with the
// callback after sign-in and approval, and returns its result.
func driveNode(t *testing.T, p *testenv.Platform, stdout io.Reader, stdin io.WriteCloser) map[string]any {
	t.Helper()
	defer stdin.Close()
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var msg struct {
			Authorize string         `json:"authorize"`
			Result    map[string]any `json:"result"`
		}
		require.NoError(t, json.Unmarshal(sc.Bytes(), &msg), sc.Text())
		if msg.Result != nil {
			return msg.Result
		}
		cb := authorize(t, p, msg.Authorize)
		_, err := io.WriteString(stdin, cb.String()+"\n")
		require.NoError(t, err)
	}
	return nil
}

func nodePath(t *testing.T) string {
	p, err := exec.LookPath("node")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("node is missing")
		}
		t.Skip("node not installed")
	}
	return p
}
