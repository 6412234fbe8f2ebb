package resource_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"platform/kernel/resource"
	"platform/kernel/store"
	"platform/kernel/store/sqlitestore"
	"platform/kernel/tenant"
)

// TestGlobalResource: a global resource's records belong to no customer,
// so every customer reads the same ones; a writable global resource is a
// declaration error.
func TestGlobalResource(t *testing.T) {
	t.Parallel()
	st, err := sqlitestore.Open(filepath.Join(t.TempDir(), "store.db"))
	require.NoError(t, err)
	t.Cleanup(func() { _ = st.Close(context.Background()) })
	reg := resource.NewRegistry()
	r := &resource.Resource{Plural: "states", Title: "state", ReadOnly: true, Global: true,
		Fields: []resource.Field{{Name: "name", Type: resource.TString, Filter: true}}}
	reg.Add("config", r)
	svc := &resource.Service{Store: st, Events: &events{}, Registry: reg}

	id := store.NewID()
	require.NoError(t, st.Global("states").Insert(context.Background(), store.Doc{"_id": id, "name": "crm.consumers"}))
	for _, cust := range []string{"c1", "c2"} {
		ctx := tenant.WithCustomer(context.Background(), cust)
		page, err := svc.Find(ctx, r, resource.ListQuery{Limit: 10})
		require.NoError(t, err, cust)
		require.Len(t, page.Records, 1, cust)
		got, err := svc.Get(ctx, r, id)
		require.NoError(t, err, cust)
		assert.Equal(t, "crm.consumers", got["name"])
	}
	assert.Panics(t, func() {
		reg.Add("config", &resource.Resource{Plural: "writable", Title: "w", Global: true})
	}, "a global resource must be read-only")
}
