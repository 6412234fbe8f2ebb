package states_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"platform/kernel/query"
	"platform/kernel/resource"
	"platform/kernel/store"
	"platform/modules/config/states"
	"platform/test/testenv"
)

// declarations is a small registry; filterPrice toggles one declaration
// detail, and withCoupons adds a second resource.
func declarations(filterPrice, withCoupons bool) *resource.Registry {
	reg := resource.NewRegistry()
	reg.Add("shop", &resource.Resource{Plural: "products", Title: "product", Fields: []resource.Field{
		{Name: "name", Type: resource.TString, Filter: true, Sort: true},
		{Name: "price", Type: resource.TNumber, Filter: filterPrice},
		{Name: "secret", Type: resource.TString, WriteOnly: true},
	}, Actions: []resource.Action{{Name: "archive", Title: "archive it", Right: "shop.products.archive"}}})
	if withCoupons {
		reg.Add("shop", &resource.Resource{Plural: "coupons", Title: "coupon", ReadOnly: true})
	}
	return reg
}

func stored(t *testing.T, st store.Store, coll string) map[string]store.Doc {
	t.Helper()
	docs, err := st.Global(coll).Find(context.Background(), store.FindOptions{Filter: query.Eq(states.FieldAppName, "rel")})
	require.NoError(t, err)
	out := map[string]store.Doc{}
	for _, d := range docs {
		out[d["_id"].(string)] = d
	}
	return out
}

func register(t *testing.T, st store.Store, reg *resource.Registry) (states.Result, states.Result) {
	t.Helper()
	ctx := context.Background()
	res, err := states.Register(ctx, st, "rel", states.Derive(reg, "rel"))
	require.NoError(t, err)
	cache, err := states.Rebuild(ctx, st, "rel")
	require.NoError(t, err)
	return res, cache
}

// TestRegisterFollowsTheDeclarations: a changed declaration updates its
// state (and only it), a removed one is deleted, an unchanged registry
// writes nothing, and the cache follows.
func TestRegisterFollowsTheDeclarations(t *testing.T) {
	t.Parallel()
	st := testenv.NewStore(t, "")

	res, cache := register(t, st, declarations(false, true))
	// overview, two tables, rights: products view/create/edit/delete/archive, coupons view.
	assert.Equal(t, states.Result{Inserted: 9}, res)
	assert.Equal(t, states.Result{Inserted: 1}, cache)
	before := stored(t, st, states.Collection)

	res, cache = register(t, st, declarations(false, true))
	assert.Equal(t, states.Result{Unchanged: 9}, res)
	assert.Equal(t, states.Result{Unchanged: 1}, cache)

	res, cache = register(t, st, declarations(true, true))
	assert.Equal(t, states.Result{Updated: 1, Unchanged: 8}, res, "only the products table changed")
	assert.Equal(t, states.Result{Updated: 1}, cache)
	after := stored(t, st, states.Collection)
	for id, d := range after {
		if d[states.FieldName] != "shop.products" {
			assert.Equal(t, before[id], d, "untouched: %s", d[states.FieldName])
			continue
		}
		assert.Equal(t, []any{"_id", "createdAt", "updatedAt", "createdBy", "modifiedBy", "name", "price"}, d["filters"])
		assert.Equal(t, before[id]["createdAt"], d["createdAt"], "createdAt is kept")
		assert.NotEqual(t, before[id][states.FieldHash], d[states.FieldHash])
		for _, c := range d["cols"].([]any) {
			assert.NotEqual(t, "secret", c.(map[string]any)["name"], "write-only fields are no column")
		}
	}

	res, cache = register(t, st, declarations(true, false))
	assert.Equal(t, states.Result{Updated: 1}, cache)
	assert.Equal(t, states.Result{Updated: 1, Deleted: 2, Unchanged: 6}, res, "the coupons table and right go, the overview loses its link")
	summary := stored(t, st, states.CacheCollection)
	require.Len(t, summary, 1)
	for _, s := range summary {
		assert.EqualValues(t, 1, s["tableCount"])
		assert.Equal(t, []any{"shop.products.archive", "shop.products.create", "shop.products.delete", "shop.products.edit", "shop.products.view"}, s["rights"])
	}
}
