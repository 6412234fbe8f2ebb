package crm_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"platform/kernel/auth"
	"platform/kernel/store"
	"platform/kernel/tenant"
	"platform/test/testenv"
)

// allRights is the scope of a CRM administrator: every CRM right (the Bug
// right crm.tasks.bugs included) and the marketing rights the mail history needs.
var allRights = []string{"crm.*", "marketing.*"}

// salesRights is a normal sales user: everything on consumers, tasks and
// notes, but not crm.tasks.bugs.
var salesRights = []string{"crm.consumers.*", "crm.notes.*", "crm.tasks.view", "crm.tasks.create", "crm.tasks.edit",
	"crm.tasks.delete", "crm.tasks.assign", "marketing.maillogs.view"}

// fixture is a platform of its own for one top-level test, with a second
// customer, whose CRM and marketing answers are all checked against the
// published OpenAPI documents.
type fixture struct {
	t     testing.TB
	p     *testenv.Platform
	admin string // token of customer A's admin with allRights
	other string // token of customer B's admin with allRights
	// otherCtx is customer B's context for reading its store.
	otherCtx  context.Context
	otherUser string // customer B's admin
	// recorded are the events of the scenario's call (set by run).
	recorded []event
}

// newFixture runs the test in parallel with the others, on a platform of its own.
func newFixture(t *testing.T) *fixture {
	t.Helper()
	t.Parallel()
	p := testenv.NewPlatform(t, testenv.Options{})
	return setUp(t, p)
}

// setUp finishes a fixture on a started platform (tests that mount extra
// routes do so between NewPlatform and setUp, before the first request).
func setUp(t *testing.T, p *testenv.Platform) *fixture {
	t.Helper()
	p.CheckOpenAPI("crm")
	p.CheckOpenAPI("marketing")
	cust, user := p.OtherCustomer("other")
	return &fixture{
		t: t, p: p, admin: p.Token(allRights...),
		other:    p.TokenFor(cust.ID, user.ID, allRights...),
		otherCtx: tenantCtx(cust.ID), otherUser: user.ID,
	}
}

// For binds the fixture to a subtest.
func (f *fixture) For(t testing.TB) *fixture {
	c := *f
	c.t, c.p = t, f.p.For(t)
	return &c
}

func tenantCtx(customer string) context.Context {
	return tenant.WithCustomer(context.Background(), customer)
}

// moduleBase is {module_base_url} of the CRM, gateway its gateway form.
func (f *fixture) moduleBase() string { return "http://crm-api." + f.p.Config.PlatformDomain }
func (f *fixture) gateway() string    { return f.p.URL + "/crm" }

// --- records, made through the API ---

// create POSTs a record with the admin token and returns its id.
func (f *fixture) create(plural string, body map[string]any) string {
	f.t.Helper()
	r := f.p.Do("POST", "/crm/"+plural, f.admin, body)
	require.Equal(f.t, http.StatusCreated, r.Status, "create %s: %s", plural, r.Body)
	id, _ := r.Payload()["_id"].(string)
	require.Len(f.t, id, 24)
	return id
}

var emailSeq atomic.Int64

// uniqueEmail is a fresh address, so records of one test never collide.
func uniqueEmail(prefix string) string {
	return fmt.Sprintf("%s.%d@example.com", prefix, emailSeq.Add(1))
}

func (f *fixture) consumer(fields ...any) string {
	f.t.Helper()
	body := map[string]any{"email": uniqueEmail("c")}
	for i := 0; i+1 < len(fields); i += 2 {
		body[fields[i].(string)] = fields[i+1]
	}
	return f.create("consumers", body)
}

func (f *fixture) task(fields ...any) string {
	f.t.Helper()
	body := map[string]any{"title": "call back"}
	for i := 0; i+1 < len(fields); i += 2 {
		body[fields[i].(string)] = fields[i+1]
	}
	return f.create("tasks", body)
}

func (f *fixture) note(targetType, targetID string, fields ...any) string {
	f.t.Helper()
	body := map[string]any{"body": "met at the fair", "targetType": targetType, "targetId": targetID}
	for i := 0; i+1 < len(fields); i += 2 {
		body[fields[i].(string)] = fields[i+1]
	}
	return f.create("notes", body)
}

// otherConsumer creates a consumer of customer B.
func (f *fixture) otherConsumer() string {
	f.t.Helper()
	r := f.p.Do("POST", "/crm/consumers", f.other, map[string]any{"email": uniqueEmail("b")})
	require.Equal(f.t, http.StatusCreated, r.Status, "create customer B's consumer: %s", r.Body)
	return r.Payload()["_id"].(string)
}

// mailLog stores a mail log as the platform does at send time (the
// resource is read-only over the API).
func (f *fixture) mailLog(consumer, to string) string {
	f.t.Helper()
	id := store.NewID()
	doc := store.Doc{"_id": id, "to": to, "status": "sent", "createdAt": time.Now().UTC().Truncate(time.Millisecond)}
	if consumer != "" {
		doc["consumer"] = consumer
	}
	require.NoError(f.t, f.p.Store.Collection("maillogs").Insert(f.p.Ctx(), doc))
	return id
}

// stored reads a record of customer A straight from the store (nil when gone).
func (f *fixture) stored(coll, id string) store.Doc {
	f.t.Helper()
	d, err := f.p.Store.Collection(coll).Get(f.p.Ctx(), id)
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	require.NoError(f.t, err)
	return d
}

// --- events ---

type event struct {
	ID, Name string
	Data     store.Doc
}

// events lists customer A's recorded events.
func (f *fixture) events() []event {
	f.t.Helper()
	docs, err := f.p.Store.Collection("events").Find(f.p.Ctx(), store.FindOptions{})
	require.NoError(f.t, err)
	out := make([]event, 0, len(docs))
	for _, d := range docs {
		data, _ := d["data"].(map[string]any)
		out = append(out, event{ID: d["_id"].(string), Name: d["name"].(string), Data: data})
	}
	return out
}

// eventsAfter runs do and returns the events recorded meanwhile.
func (f *fixture) eventsAfter(do func()) []event {
	f.t.Helper()
	seen := map[string]bool{}
	for _, e := range f.events() {
		seen[e.ID] = true
	}
	do()
	var out []event
	for _, e := range f.events() {
		if !seen[e.ID] {
			out = append(out, e)
		}
	}
	return out
}

func names(evs []event) []string {
	out := []string{}
	for _, e := range evs {
		out = append(out, e.Name)
	}
	sort.Strings(out)
	return out
}

// --- tokens that must be refused ---

// signedToken signs access-token claims for customer A's admin that expire
// at exp, with key (nil: the platform's signing key).
func (f *fixture) signedToken(exp time.Time, key *ecdsa.PrivateKey) string {
	f.t.Helper()
	active, err := f.p.Keys.Active(context.Background())
	require.NoError(f.t, err)
	if key == nil {
		key = active.Private
	}
	now := time.Now()
	c := &auth.Claims{
		RegisteredClaims: jwt.RegisteredClaims{
			Issuer: f.p.Config.AuthURL, Subject: f.p.Admin.ID, Audience: jwt.ClaimStrings{f.p.Config.GatewayURL},
			ExpiresAt: jwt.NewNumericDate(exp), IssuedAt: jwt.NewNumericDate(now.Add(-2 * time.Hour)),
			NotBefore: jwt.NewNumericDate(now.Add(-2 * time.Hour)), ID: store.NewID(),
		},
		ClientID: "test", Scope: strings.Join(allRights, " "), Customer: f.p.Customer.ID, User: f.p.Admin.ID,
	}
	tok := jwt.NewWithClaims(jwt.SigningMethodES256, c)
	tok.Header["typ"] = "at+jwt"
	tok.Header["kid"] = active.ID
	s, err := tok.SignedString(key)
	require.NoError(f.t, err)
	return s
}

func otherKey(t testing.TB) *ecdsa.PrivateKey {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	return k
}

// --- scenario tables ---

// ids names the records a scenario works on; "{name}" in paths, bodies and
// headers is replaced by ids[name]. run adds "user" (customer A's admin) and
// "domain" (the platform domain of the module host form).
type ids map[string]string

func (v ids) expand(s string) string {
	for k, id := range v {
		s = strings.ReplaceAll(s, "{"+k+"}", id)
	}
	return s
}

// scenario is one API call and everything it must answer and change.
type scenario struct {
	name   string
	given  func(f *fixture) ids // records the call needs, made fresh for it
	method string
	path   string
	scopes []string                                 // scopes of customer A's admin token; nil: allRights
	token  func(f *fixture) string                  // another token instead ("" sends none)
	body   any                                      // JSON-encoded; a string is sent as is
	header []string                                 // name, value pairs ({name} expanded)
	status int                                      // expected HTTP status
	codes  []string                                 // expected meta.errors[].code, in any order
	field  string                                   // a meta.errors entry names this field
	events []string                                 // events the call records (none when empty)
	then   func(f *fixture, v ids, r *testenv.Resp) // side effects
}

func none(*fixture) string { return "" }

// run runs the scenarios in order, each as a subtest on f's platform. Beyond
// each scenario's own expectations it asserts for every call: the envelope
// (checkEnvelope), exactly the expected events, and that a read or a refused
// call changes no record of either customer.
func run(t *testing.T, f *fixture, scenarios []scenario) {
	t.Helper()
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			f := f.For(t)
			v := ids{}
			if sc.given != nil {
				v = sc.given(f)
			}
			v["user"], v["domain"] = f.p.Admin.ID, f.p.Config.PlatformDomain
			token := f.p.Token(allRights...)
			if sc.scopes != nil {
				token = f.p.Token(sc.scopes...)
			}
			if sc.token != nil {
				token = sc.token(f)
			}
			var body any
			switch b := sc.body.(type) {
			case nil:
			case string:
				body = v.expand(b)
			default:
				j, err := json.Marshal(b)
				require.NoError(t, err)
				body = v.expand(string(j))
			}
			header := make([]string, len(sc.header))
			for i, h := range sc.header {
				header[i] = v.expand(h)
			}
			before := f.snapshot()
			var r *testenv.Resp
			f.recorded = f.eventsAfter(func() { r = f.p.Do(sc.method, v.expand(sc.path), token, body, header...) })
			require.Equal(t, sc.status, r.Status, "answer: %s", r.Body)
			checkEnvelope(t, r)
			if sc.codes != nil {
				assert.ElementsMatch(t, sc.codes, r.ErrorCodes(), "error codes of %s", r.Body)
			}
			if sc.field != "" {
				assert.Contains(t, errorFields(r), sc.field, "error fields of %s", r.Body)
			}
			want := append([]string{}, sc.events...)
			sort.Strings(want)
			assert.Equal(t, want, names(f.recorded), "events recorded by the call")
			if sc.method == http.MethodGet || r.Status >= 400 {
				assert.Equal(t, before, f.snapshot(), "a read or a refused call changes no record")
			}
			if sc.then != nil {
				sc.then(f, v, r)
			}
		})
	}
}

// snapshotted are the collections a CRM call may change.
var snapshotted = []string{"consumers", "tasks", "notes", "maillogs", "consumermerges"}

// snapshot reads every record of both customers, ordered by id.
func (f *fixture) snapshot() map[string][]store.Doc {
	f.t.Helper()
	out := map[string][]store.Doc{}
	for who, ctx := range map[string]context.Context{"A": f.p.Ctx(), "B": f.otherCtx} {
		for _, c := range append(snapshotted, "events") {
			if who == "A" && c == "events" {
				continue // compared by name with the scenario's events
			}
			docs, err := f.p.Store.Collection(c).Find(ctx, store.FindOptions{})
			require.NoError(f.t, err)
			sort.Slice(docs, func(i, j int) bool { return docs[i]["_id"].(string) < docs[j]["_id"].(string) })
			out[who+"/"+c] = docs
		}
	}
	return out
}

func errorFields(r *testenv.Resp) []string {
	errs, _ := r.Meta()["errors"].([]any)
	out := []string{}
	for _, e := range errs {
		m, _ := e.(map[string]any)
		if s, ok := m["field"].(string); ok {
			out = append(out, s)
		}
	}
	return out
}

var dotted = regexp.MustCompile(`^[0-9]+(\.[0-9]+)+$`)

// checkEnvelope asserts what every JSON answer carries: { payload, meta }
// with every meta field of the specification, consistent with the status
// and the response headers.
func checkEnvelope(t testing.TB, r *testenv.Resp) {
	t.Helper()
	if !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
		return
	}
	require.NotNil(t, r.Env, "a JSON envelope: %s", r.Body)
	assert.Contains(t, r.Env, "payload")
	m := r.Meta()
	require.NotNil(t, m, "meta: %s", r.Body)
	for _, k := range []string{"links", "relations", "actions", "errors"} {
		assert.IsType(t, []any{}, m[k], "meta.%s is an array", k)
	}
	debugID, _ := m["debugId"].(string)
	assert.NotEmpty(t, debugID, "meta.debugId")
	assert.Equal(t, r.Header.Get("X-Debug-Id"), debugID, "meta.debugId is the X-Debug-Id header")
	version, _ := m["version"].(map[string]any)
	for _, k := range []string{"host", "core"} {
		s, _ := version[k].(string)
		assert.Regexp(t, dotted, s, "meta.version.%s", k)
	}
	rl, ok := m["rateLimit"].(map[string]any)
	require.True(t, ok, "meta.rateLimit is an object")
	for k, h := range map[string]string{"limit": "X-RateLimit-Limit", "remaining": "X-RateLimit-Remaining", "reset": "X-RateLimit-Reset", "resetDate": ""} {
		s, ok := rl[k].(string)
		assert.True(t, ok, "meta.rateLimit.%s is a string", k)
		if h != "" && r.Header.Get(h) != "" {
			assert.Equal(t, r.Header.Get(h), s, "meta.rateLimit.%s is the %s header", k, h)
		}
	}
	if r.Header.Get("X-RateLimit-Limit") != "" {
		_, err := time.Parse(time.RFC3339, rl["resetDate"].(string))
		assert.NoError(t, err, "meta.rateLimit.resetDate")
	}
	rt, ok := m["responseTime"].(float64)
	assert.True(t, ok && rt >= 0, "meta.responseTime is a number")
	assert.Equal(t, float64(r.Status), m["code"], "meta.code is the HTTP status")
	if r.Status < 400 {
		assert.Equal(t, "success", m["status"])
		assert.Equal(t, false, m["error"])
		assert.Empty(t, m["errors"], "meta.errors is empty on success")
		return
	}
	assert.Equal(t, "error", m["status"])
	assert.Equal(t, true, m["error"])
	assert.Nil(t, r.Env["payload"], "an error has no payload")
	errs, _ := m["errors"].([]any)
	require.NotEmpty(t, errs, "an error names what failed")
	for _, e := range errs {
		entry, _ := e.(map[string]any)
		assert.NotEmpty(t, entry["code"])
		assert.NotEmpty(t, entry["message"])
	}
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

// actionNames lists meta.actions[].action.
func actionNames(r *testenv.Resp) []string {
	acts, _ := r.Meta()["actions"].([]any)
	out := []string{}
	for _, a := range acts {
		m, _ := a.(map[string]any)
		out = append(out, m["action"].(string))
	}
	return out
}

// listIDs lists the _id of every record of a list answer, in order.
func listIDs(r *testenv.Resp) []string {
	out := []string{}
	for _, d := range r.List() {
		out = append(out, d["_id"].(string))
	}
	return out
}

// linkHref finds meta.links[rel].href.
func linkHref(r *testenv.Resp, rel string) string {
	links, _ := r.Meta()["links"].([]any)
	for _, l := range links {
		m, _ := l.(map[string]any)
		if m["rel"] == rel {
			return m["href"].(string)
		}
	}
	return ""
}

func sortedKeys(d map[string]any) []string {
	out := make([]string, 0, len(d))
	for k := range d {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
