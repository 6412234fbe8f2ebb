package workflows_test

import (
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"platform/kernel/settings"
	"platform/modules/config/computing"
	"platform/test/testenv"
)

// TestRecordHistoriesComputing runs a start of a computing entity on the
// real servers against the provider simulator (a move of a second, read
// every 200 ms) and writes its history to testdata/computing_action.json.
func TestRecordHistoriesComputing(t *testing.T) {
	if os.Getenv("PLATFORM_RECORD_HISTORY") == "" {
		t.Skip("set PLATFORM_RECORD_HISTORY=1 to record testdata/computing_action.json")
	}
	srv := httptest.NewServer(&computing.Simulator{Delay: time.Second})
	defer srv.Close()
	p := testenv.NewPlatform(t, testenv.Options{Worker: true, Configure: func(c *settings.Config) {
		c.Computing.ProviderURL, c.Computing.Poll, c.Computing.Deadline = srv.URL, 200*time.Millisecond, time.Minute
		c.OutboundAllow = []string{"127.0.0.1"}
	}})
	tok := p.Token("config.computingentities.*")
	r := p.Do("POST", "/config/computingentities", tok, map[string]any{"name": "replay", "type": "vm-aws"})
	require.Equal(t, 201, r.Status)
	r = p.Do("POST", "/config/computingentities/"+r.Payload()["_id"].(string)+"/actions/start", tok, nil)
	require.Equal(t, 202, r.Status, string(r.Body))
	wid := r.Payload()[computing.FieldWorkflowID].(string)
	ctx, cancel := context.WithTimeout(p.Ctx(), time.Minute)
	defer cancel()
	require.NoError(t, p.Temporal.GetWorkflow(ctx, wid, "").Get(ctx, nil))
	writeHistory(ctx, t, p.Temporal, wid, filepath.Join("testdata", "computing_action.json"))
}
