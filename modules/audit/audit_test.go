package audit_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"platform/modules/audit/trail"
	"platform/test/testenv"
)

// TestTrailIsReadOnlyAndPerCustomer: records can be listed and filtered by
// admins of their customer; nothing can write, change or delete them
// through the API.
func TestTrailIsReadOnlyAndPerCustomer(t *testing.T) {
	t.Parallel()
	p := testenv.NewPlatform(t, testenv.Options{})
	p.CheckOpenAPI("audit")
	w := &trail.StoreWriter{Store: p.Store, Log: testenv.Logger(t)}
	require.NoError(t, w.Write(p.Ctx(), trail.Record{Action: "test.one", Actor: p.Admin.ID, ActorType: "user", Target: "x", Outcome: trail.Success, ClientAddress: "192.0.2.1"}))
	require.NoError(t, w.Write(p.Ctx(), trail.Record{Action: "test.two", Outcome: trail.Failure}))
	tok := p.Token("audit.auditrecords.view")

	r := p.Do("GET", "/audit/auditrecords?action=test.one", tok, nil)
	require.Equal(t, 200, r.Status, string(r.Body))
	require.Len(t, r.List(), 1)
	rec := r.List()[0]
	require.Equal(t, "192.0.2.1", rec["clientAddress"])
	require.Equal(t, p.Admin.ID, rec["actor"])
	require.NotEmpty(t, rec["time"])
	id := rec["_id"].(string)

	for _, m := range []string{"POST", "PUT", "PATCH", "DELETE"} {
		path := "/audit/auditrecords/" + id
		if m == "POST" {
			path = "/audit/auditrecords"
		}
		r := p.Do(m, path, p.Token("*"), map[string]any{"action": "forged"})
		require.Contains(t, []int{404, 405}, r.Status, m)
	}
	require.Equal(t, 200, p.Do("GET", "/audit/auditrecords/"+id, tok, nil).Status)
	require.Equal(t, 403, p.Do("GET", "/audit/auditrecords", p.Token("crm.*"), nil).Status)

	other, admin := p.OtherCustomer("other")
	r = p.Do("GET", "/audit/auditrecords", p.TokenFor(other.ID, admin.ID, "audit.*"), nil)
	require.Equal(t, 200, r.Status)
	require.Empty(t, r.List(), "another customer's trail is separate")
}
