package e2e

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"platform/kernel/query"
	"platform/kernel/store"
	"platform/kernel/store/mongostore"
	"platform/kernel/tenant"
	"platform/test/testenv"
)

// TestBackupWhileRunningRestores: a backup taken while dev runs starts a
// platform that has the data.
func TestBackupWhileRunningRestores(t *testing.T) {
	t.Parallel()
	d := newDev(t)
	d.start()
	status, env, err := d.do("POST", "/crm/consumers", d.token("crm.*"), map[string]any{"email": "backup@example.com"})
	require.NoError(t, err)
	require.Equal(t, 201, status)
	id := payloadID(env)
	dir := filepath.Join(t.TempDir(), "backup")
	require.Contains(t, d.admin("backup", "--to", dir), "backup written")
	require.NoError(t, d.signal(syscall.SIGTERM))

	restored := newDev(t)
	restored.data = dir
	restored.start()
	status, _, err = restored.do("GET", "/crm/consumers/"+id, restored.token("crm.*"), nil)
	require.NoError(t, err)
	require.Equal(t, 200, status, "the record is in the backup")
}

// TestMigrateStoreCopiesEverythingIdempotently moves the embedded store
// into MongoDB (FerretDB here) twice and finds every record once.
func TestMigrateStoreCopiesEverythingIdempotently(t *testing.T) {
	t.Parallel()
	d := newDev(t)
	d.start()
	tok := d.token("crm.*")
	var ids []string
	for _, email := range []string{"m1@example.com", "m2@example.com", "m3@example.com"} {
		status, env, err := d.do("POST", "/crm/consumers", tok, map[string]any{"email": email, "tags": []string{"x"}})
		require.NoError(t, err)
		require.Equal(t, 201, status)
		ids = append(ids, payloadID(env))
	}
	customer := d.admin("customer", "create", "demo")
	require.NoError(t, d.signal(syscall.SIGTERM))

	uri := testenv.Infra(t).MongoURI
	db := testenv.Name(t)
	for run := 0; run < 2; run++ {
		cmd := exec.Command(d.bin, "migrate-store", "--to", uri, "--mongodb-database", db)
		cmd.Env = d.env()
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, string(out))
		require.Contains(t, string(out), "copied")
		if run == 0 {
			// a second run after a finished one resumes past the end: nothing to copy again
			continue
		}
		require.True(t, strings.Contains(string(out), "copied 0 documents"), string(out))
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	st, err := mongostore.Open(ctx, uri, db)
	require.NoError(t, err)
	defer func() { _ = st.DropDatabase(ctx); _ = st.Close(ctx) }()
	cctx := tenant.WithCustomer(ctx, customer)
	n, err := st.Collection("consumers").Count(cctx, query.Field{Path: "_id", Conds: []query.Cond{query.In{Values: []any{ids[0], ids[1], ids[2]}}}})
	require.NoError(t, err)
	require.EqualValues(t, 3, n, "every consumer arrived, under its customer")
	doc, err := st.Collection("consumers").Get(cctx, ids[0])
	require.NoError(t, err)
	require.Equal(t, []any{"x"}, doc["tags"])
	_, err = st.Collection("consumers").Get(tenant.WithCustomer(ctx, store.NewID()), ids[0])
	require.ErrorIs(t, err, store.ErrNotFound, "tenancy survives the move")
}
