package workflows_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"platform/test/testenv"
	"platform/workflows/contract"
)

// TestRecordHistoriesRender renders a wiki page on the real servers and
// writes the history of its render to testdata/render_record.json: the
// first render, then a save signalled while the workflow ran.
func TestRecordHistoriesRender(t *testing.T) {
	if os.Getenv("PLATFORM_RECORD_HISTORY") == "" {
		t.Skip("set PLATFORM_RECORD_HISTORY=1 to record testdata/render_record.json")
	}
	p := testenv.NewPlatform(t, testenv.Options{Worker: true})
	tok := p.Token("hub.*")
	require.Equal(t, 201, p.Do("POST", "/hub/knowledgebases", tok, map[string]any{"slug": "docs", "title": "Docs"}).Status)
	r := p.Do("POST", "/hub/wikipages", tok, map[string]any{"kbslug": "docs", "slug": "replay", "title": "Replay", "body": "# One"})
	require.Equal(t, 201, r.Status)
	id := r.Payload()["_id"].(string)
	require.Equal(t, 200, p.Do("PATCH", "/hub/wikipages/"+id, tok, map[string]any{"body": "# Two"}).Status)
	ctx, cancel := context.WithTimeout(p.Ctx(), time.Minute)
	defer cancel()
	wid := contract.RenderWorkflowID(p.Customer.ID, "wikipage", id)
	require.NoError(t, p.Temporal.GetWorkflow(ctx, wid, "").Get(ctx, nil))
	writeHistory(ctx, t, p.Temporal, wid, filepath.Join("testdata", "render_record.json"))
}
