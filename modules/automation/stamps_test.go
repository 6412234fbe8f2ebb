package automation_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"platform/test/apitest"
	"platform/test/testenv"
)

// TestActionWritesStampAndAnnounce: the writes of rotateToken and deploy
// move updatedAt, name who made them in modifiedBy and emit the action's
// event with the record as written. The call is made by a colleague, so
// modifiedBy cannot still name the admin who made the records.
func TestActionWritesStampAndAnnounce(t *testing.T) {
	f := newFixture(t)
	colleague := func(f *fixture) string { _, tok := f.Colleague(); return tok }
	stampedBy := func(coll string) func(f *fixture, v apitest.IDs, r *testenv.Resp) {
		return func(f *fixture, v apitest.IDs, r *testenv.Resp) {
			id, _ := f.Colleague()
			f.CheckStamped(coll, v["id"], id)
			assert.Equal(f.T, id, r.Payload()["modifiedBy"], "the answer shows the record as written")
			assert.Equal(f.T, id, f.Recorded[0].Data["modifiedBy"], "the event shows the record as written")
		}
	}
	apitest.Run(t, f, []scenario{
		{Name: "rotateToken", Token: colleague, Method: "POST", Path: "/automation/triggers/{id}/actions/rotateToken", Status: 200,
			Given: func(f *fixture) apitest.IDs {
				return apitest.IDs{"id": f.Create("/automation/triggers", map[string]any{"name": "orders", "type": "webhook"})}
			},
			Events: []string{"triggers.rotated"}, Then: stampedBy("triggers")},
		{Name: "deploy", Token: colleague, Method: "POST", Path: "/automation/functions/{id}/actions/deploy", Status: 200,
			Given: func(f *fixture) apitest.IDs {
				return apitest.IDs{"id": f.Create("/automation/functions", map[string]any{"name": "sum", "code": "return { sum: input.a + input.b }"})}
			},
			Events: []string{"functions.deployed"}, Then: stampedBy("functions")},
	})
}
