package crm_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"platform/kernel/auth"
	"platform/kernel/store"
	"platform/test/apitest"
	"platform/test/testenv"
)

// allRights is the scope of a CRM administrator: every CRM right (the Bug
// right crm.tasks.bugs included) and the marketing rights the mail history needs.
var allRights = []string{"crm.*", "marketing.*"}

// salesRights is a normal sales user: everything on consumers, tasks and
// notes, but not crm.tasks.bugs.
var salesRights = []string{"crm.consumers.*", "crm.notes.*", "crm.tasks.view", "crm.tasks.create", "crm.tasks.edit",
	"crm.tasks.delete", "crm.tasks.assign", "marketing.maillogs.view"}

// fixture is the CRM's scenario fixture: a platform of its own for one
// top-level test, with a second customer, whose CRM and marketing answers
// are all checked against the published OpenAPI documents.
type fixture struct{ *apitest.Env }

// crmAPI is what a CRM call may touch: the collections it may change.
var crmAPI = apitest.Options{
	Modules: []string{"crm", "marketing"}, Rights: allRights,
	Collections: []string{"consumers", "tasks", "notes", "maillogs", "consumermerges"},
}

type (
	scenario = apitest.Scenario[*fixture]
	ids      = apitest.IDs
)

var none = apitest.NoToken[*fixture]

// newFixture runs the test in parallel with the others, on a platform of its own.
func newFixture(t *testing.T) *fixture {
	t.Helper()
	return &fixture{apitest.New(t, crmAPI)}
}

// setUp finishes a fixture on a started platform (tests that mount extra
// routes do so between NewPlatform and setUp, before the first request).
func setUp(t *testing.T, p *testenv.Platform) *fixture {
	t.Helper()
	return &fixture{apitest.Setup(t, p, crmAPI)}
}

// For binds the fixture to a subtest.
func (f *fixture) For(t testing.TB) *fixture { return &fixture{f.Env.For(t)} }

// moduleBase is {module_base_url} of the CRM, gateway its gateway form.
func (f *fixture) moduleBase() string { return "http://crm-api." + f.P.Config.PlatformDomain }
func (f *fixture) gateway() string    { return f.P.URL + "/crm" }

// --- records, made through the API ---

// create POSTs a record with the admin token and returns its id.
func (f *fixture) create(plural string, body map[string]any) string {
	f.T.Helper()
	return f.Create("/crm/"+plural, body)
}

var emailSeq atomic.Int64

// uniqueEmail is a fresh address, so records of one test never collide.
func uniqueEmail(prefix string) string {
	return fmt.Sprintf("%s.%d@example.com", prefix, emailSeq.Add(1))
}

func (f *fixture) consumer(fields ...any) string {
	f.T.Helper()
	body := map[string]any{"email": uniqueEmail("c")}
	for i := 0; i+1 < len(fields); i += 2 {
		body[fields[i].(string)] = fields[i+1]
	}
	return f.create("consumers", body)
}

func (f *fixture) task(fields ...any) string {
	f.T.Helper()
	body := map[string]any{"title": "call back"}
	for i := 0; i+1 < len(fields); i += 2 {
		body[fields[i].(string)] = fields[i+1]
	}
	return f.create("tasks", body)
}

func (f *fixture) note(targetType, targetID string, fields ...any) string {
	f.T.Helper()
	body := map[string]any{"body": "met at the fair", "targetType": targetType, "targetId": targetID}
	for i := 0; i+1 < len(fields); i += 2 {
		body[fields[i].(string)] = fields[i+1]
	}
	return f.create("notes", body)
}

// otherConsumer creates a consumer of customer B.
func (f *fixture) otherConsumer() string {
	f.T.Helper()
	r := f.P.Do("POST", "/crm/consumers", f.Other, map[string]any{"email": uniqueEmail("b")})
	require.Equal(f.T, http.StatusCreated, r.Status, "create customer B's consumer: %s", r.Body)
	return r.Payload()["_id"].(string)
}

// mailLog stores a mail log as the platform does at send time (the
// resource is read-only over the API).
func (f *fixture) mailLog(consumer, to string) string {
	f.T.Helper()
	id := store.NewID()
	doc := store.Doc{"_id": id, "to": to, "status": "sent", "createdAt": time.Now().UTC().Truncate(time.Millisecond)}
	if consumer != "" {
		doc["consumer"] = consumer
	}
	require.NoError(f.T, f.P.Store.Collection("maillogs").Insert(f.P.Ctx(), doc))
	return id
}

// --- tokens that must be refused ---

// signedToken signs access-token claims for customer A's admin that expire
// at exp, with key (nil: the platform's signing key).
func (f *fixture) signedToken(exp time.Time, key *ecdsa.PrivateKey) string {
	f.T.Helper()
	active, err := f.P.Keys.Active(context.Background())
	require.NoError(f.T, err)
	if key == nil {
		key = active.Private
	}
	now := time.Now()
	c := &auth.Claims{
		RegisteredClaims: jwt.RegisteredClaims{
			Issuer: f.P.Config.AuthURL, Subject: f.P.Admin.ID, Audience: jwt.ClaimStrings{f.P.Config.GatewayURL},
			ExpiresAt: jwt.NewNumericDate(exp), IssuedAt: jwt.NewNumericDate(now.Add(-2 * time.Hour)),
			NotBefore: jwt.NewNumericDate(now.Add(-2 * time.Hour)), ID: store.NewID(),
		},
		ClientID: "test", Scope: strings.Join(allRights, " "), Customer: f.P.Customer.ID, User: f.P.Admin.ID,
	}
	tok := jwt.NewWithClaims(jwt.SigningMethodES256, c)
	tok.Header["typ"] = "at+jwt"
	tok.Header["kid"] = active.ID
	s, err := tok.SignedString(key)
	require.NoError(f.T, err)
	return s
}

func otherKey(t testing.TB) *ecdsa.PrivateKey {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	return k
}

// link is an entry of meta.links, meta.relations or meta.actions.
type link = map[string]any

var types = []any{"application/json", "application/yaml", "text/csv"}

// checkConsumerMeta asserts a consumer answer's links, relations and, for a
// caller with every right, actions.
func (f *fixture) checkConsumerMeta(t testing.TB, r *testenv.Resp, id string) {
	t.Helper()
	gw := f.gateway() + "/consumers/" + id
	m := r.Meta()
	assert.Equal(t, []any{link{"rel": "self", "href": f.moduleBase() + "/consumers/" + id, "method": "GET", "title": "consumer", "types": types}}, m["links"])
	assert.Equal(t, []any{
		link{"rel": "tasks", "title": "tasks of the consumer", "href": gw + "/tasks", "method": "GET", "types": types, "right": "crm.tasks.view"},
		link{"rel": "notes", "title": "notes on the consumer", "href": gw + "/notes", "method": "GET", "types": types, "right": "crm.notes.view"},
		link{"rel": "maillogs", "title": "mail history", "href": gw + "/maillogs", "method": "GET", "types": types, "right": "marketing.maillogs.view"},
		link{"rel": "orders", "title": "orders (shop module)", "href": gw + "/orders", "method": "GET", "types": types, "right": "shop.orders.view"},
	}, m["relations"])
	assert.Equal(t, []any{
		link{"rel": "update", "action": "UPDATE", "title": "update this consumer", "href": gw, "method": "PUT", "types": types},
		link{"rel": "delete", "action": "DELETE", "title": "delete this consumer", "href": gw, "method": "DELETE", "types": types},
		link{"rel": "action", "action": "ANONYMIZE", "title": "irreversibly remove the consumer's personal data", "href": gw + "/actions/anonymize", "method": "POST", "types": types},
		link{"rel": "action", "action": "MERGE", "title": "merge this consumer into keepId and remove it", "href": gw + "/actions/merge", "method": "POST", "types": types},
	}, m["actions"])
}
