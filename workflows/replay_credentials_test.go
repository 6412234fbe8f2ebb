package workflows_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"platform/kernel/settings"
	"platform/test/testenv"
	"platform/workflows/contract"
)

// TestRecordHistoriesCredentialCommand runs a credential test on the real
// servers and writes its history to testdata/credential_command.json.
func TestRecordHistoriesCredentialCommand(t *testing.T) {
	if os.Getenv("PLATFORM_RECORD_HISTORY") == "" {
		t.Skip("set PLATFORM_RECORD_HISTORY=1 to record testdata/credential_command.json")
	}
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer srv.Close()
	p := testenv.NewPlatform(t, testenv.Options{Worker: true, Configure: func(c *settings.Config) { c.OutboundAllow = []string{"127.0.0.1"} }})
	tok := p.Token("config.credentials.*")
	r := p.Do("POST", "/config/credentials", tok, map[string]any{"name": "replay", "type": "bearer", "credentials": map[string]any{"url": srv.URL, "token": "t"}})
	require.Equal(t, 201, r.Status, string(r.Body))
	id := r.Payload()["_id"].(string)
	require.Equal(t, 200, p.Do("POST", "/config/credentials/"+id+"/actions/test", tok, nil).Status)
	ctx, cancel := context.WithTimeout(p.Ctx(), time.Minute)
	defer cancel()
	wid := contract.CredentialCommandWorkflowID(p.Customer.ID, id)
	writeHistory(ctx, t, p.Temporal, wid, filepath.Join("testdata", "credential_command.json"))
}
