package crm_test

import (
	"net/http"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"platform/kernel/query"
	"platform/kernel/store"
	"platform/test/apitest"
	"platform/test/testenv"
)

// TestDuplicateEmail: an e-mail address is unique per customer, on every
// write that can set it.
func TestDuplicateEmail(t *testing.T) {
	f := newFixture(t)
	taken := func(f *fixture) ids {
		email := uniqueEmail("taken")
		return ids{"email": email, "owner": f.consumer("email", email), "id": f.consumer()}
	}
	duplicate := func(name, method, path string, body any) scenario {
		return scenario{Name: name, Given: taken, Method: method, Path: path, Body: body, Status: 409, Codes: []string{"conflict.duplicate"}, Field: "email",
			Then: func(f *fixture, v ids, r *testenv.Resp) {
				docs, err := f.P.Store.Collection("consumers").Find(f.P.Ctx(), store.FindOptions{Filter: query.Eq("email", v["email"])})
				require.NoError(f.T, err)
				require.Len(f.T, docs, 1)
				assert.Equal(f.T, v["owner"], docs[0]["_id"])
			}}
	}
	apitest.Run(t, f, []scenario{
		duplicate("POST with a taken address", "POST", "/crm/consumers", map[string]any{"email": "{email}"}),
		duplicate("PATCH to a taken address", "PATCH", "/crm/consumers/{id}", map[string]any{"email": "{email}"}),
		duplicate("PUT /:id to a taken address", "PUT", "/crm/consumers/{id}", map[string]any{"email": "{email}"}),
		duplicate("PUT by body to a taken address", "PUT", "/crm/consumers", map[string]any{"_id": "{id}", "email": "{email}"}),
		{Name: "a record may keep its own address", Given: taken, Method: "PUT", Path: "/crm/consumers/{owner}",
			Body: map[string]any{"email": "{email}", "first_name": "Owner"}, Status: 200, Events: []string{"consumers.updated"}},
	})
}

// TestConcurrentCreatesOfOneEmail: of ten simultaneous creates with the same
// address exactly one succeeds; the others answer 409 and record nothing.
func TestConcurrentCreatesOfOneEmail(t *testing.T) {
	f := newFixture(t)
	const n = 10
	email := uniqueEmail("race")
	statuses := make([]int, n)
	codes := make([][]string, n)
	errs := make([]error, n)
	evs := f.EventsAfter(func() {
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				r, err := f.P.TryDo("POST", "/crm/consumers", f.Admin, map[string]any{"email": email, "first_name": "Racer"})
				if errs[i] = err; err == nil {
					statuses[i], codes[i] = r.Status, r.ErrorCodes()
				}
			}()
		}
		close(start)
		wg.Wait()
	})
	for i, err := range errs {
		require.NoError(t, err, "create %d", i)
	}
	created := 0
	for i, s := range statuses {
		switch s {
		case http.StatusCreated:
			created++
		case http.StatusConflict:
			assert.Equal(t, []string{"conflict.duplicate"}, codes[i])
		default:
			t.Errorf("create %d answered %d", i, s)
		}
	}
	assert.Equal(t, 1, created, "exactly one create succeeds: %v", statuses)
	docs, err := f.P.Store.Collection("consumers").Find(f.P.Ctx(), store.FindOptions{Filter: query.Eq("email", email)})
	require.NoError(t, err)
	assert.Len(t, docs, 1, "one record holds the address")
	assert.Equal(t, []string{"consumers.created"}, apitest.Names(evs), "one event, for the one record")
}

// TestEmailIsUniqueWithoutCase: addresses are stored lower-cased, so two
// spellings of one address collide.
func TestEmailIsUniqueWithoutCase(t *testing.T) {
	t.Parallel()
	p := testenv.NewPlatform(t, testenv.Options{})
	tok := p.Token("crm.*")
	r := p.Do("POST", "/crm/consumers", tok, map[string]any{"email": "Ada@Example.com"})
	require.Equal(t, 201, r.Status)
	require.Equal(t, "ada@example.com", r.Payload()["email"])
	r = p.Do("POST", "/crm/consumers", tok, map[string]any{"email": "ada@EXAMPLE.com"})
	require.Equal(t, 409, r.Status)
	require.Equal(t, []string{"conflict.duplicate"}, r.ErrorCodes())
}
