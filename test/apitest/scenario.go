package apitest

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"platform/test/testenv"
)

// IDs names the records a scenario works on; "{name}" in paths, bodies and
// headers is replaced by IDs[name]. Run adds "user" (customer A's admin)
// and "domain" (the platform domain of the module host form).
type IDs map[string]string

// Expand replaces every "{name}" in s.
func (v IDs) Expand(s string) string {
	for k, id := range v {
		s = strings.ReplaceAll(s, "{"+k+"}", id)
	}
	return s
}

// Scenario is one API call and everything it must answer and change. F is
// the module's fixture, handed to Given, Token and Then.
type Scenario[F Fixture[F]] struct {
	Name   string
	Given  func(f F) IDs // records the call needs, made fresh for it
	Method string
	Path   string
	Scopes []string                          // scopes of customer A's admin token; nil: the Env's Rights
	Token  func(f F) string                  // another token instead ("" sends none)
	Body   any                               // JSON-encoded; a string is sent as is
	Header []string                          // name, value pairs ({name} expanded; "" leaves it out)
	Status int                               // expected HTTP status
	Codes  []string                          // expected meta.errors[].code, in any order
	Field  string                            // a meta.errors entry names this field
	Events []string                          // events the call records (none when empty)
	Then   func(f F, v IDs, r *testenv.Resp) // further answers and side effects
}

// Fixture is what Run needs of a module's fixture: its Env (usually
// embedded) and a copy of the fixture bound to a subtest.
type Fixture[F any] interface {
	API() *Env
	For(t testing.TB) F
}

// NoToken makes a scenario send no Authorization header.
func NoToken[F any](F) string { return "" }

// Run runs the scenarios in order, each as a subtest on f's platform.
// Beyond each scenario's own expectations it asserts for every call: the
// envelope (CheckEnvelope), exactly the expected events, and that a read or
// a refused call changes no record of either customer. The platform checks
// every answer against the OpenAPI documents of the Env's modules.
func Run[F Fixture[F]](t *testing.T, f F, scenarios []Scenario[F]) {
	t.Helper()
	for _, sc := range scenarios {
		t.Run(sc.Name, func(t *testing.T) { sc.run(f.For(t)) })
	}
}

func (sc Scenario[F]) run(f F) {
	e := f.API()
	e.T.Helper()
	v := IDs{}
	if sc.Given != nil {
		v = sc.Given(f)
	}
	v["user"], v["domain"] = e.P.Admin.ID, e.P.Config.PlatformDomain
	body, header, token := sc.body(e.T, v), sc.header(v), sc.token(f)
	before := e.Snapshot()
	e.CalledAt = nextMillisecond()
	var r *testenv.Resp
	e.Recorded = e.EventsAfter(func() { r = e.P.Do(sc.Method, v.Expand(sc.Path), token, body, header...) })
	sc.check(e, r)
	if sc.Method == http.MethodGet || r.Status >= 400 {
		assert.Equal(e.T, before, e.Snapshot(), "a read or a refused call changes no record")
	}
	if sc.Then != nil {
		sc.Then(f, v, r)
	}
}

// check asserts the answer's status, envelope, errors and events.
func (sc Scenario[F]) check(e *Env, r *testenv.Resp) {
	e.T.Helper()
	require.Equal(e.T, sc.Status, r.Status, "answer: %s", r.Body)
	CheckEnvelope(e.T, r)
	if sc.Codes != nil {
		assert.ElementsMatch(e.T, sc.Codes, r.ErrorCodes(), "error codes of %s", r.Body)
	}
	if sc.Field != "" {
		assert.Contains(e.T, ErrorFields(r), sc.Field, "error fields of %s", r.Body)
	}
	want := append([]string{}, sc.Events...)
	slices.Sort(want)
	assert.Equal(e.T, want, Names(e.Recorded), "events recorded by the call")
}

func (sc Scenario[F]) token(f F) string {
	e := f.API()
	switch {
	case sc.Token != nil:
		return sc.Token(f)
	case sc.Scopes != nil:
		return e.P.Token(sc.Scopes...)
	default:
		return e.P.Token(e.opts.Rights...)
	}
}

func (sc Scenario[F]) body(t testing.TB, v IDs) any {
	switch b := sc.Body.(type) {
	case nil:
		return nil
	case string:
		return v.Expand(b)
	default:
		j, err := json.Marshal(b)
		require.NoError(t, err)
		return v.Expand(string(j))
	}
}

func (sc Scenario[F]) header(v IDs) []string {
	out := make([]string, len(sc.Header))
	for i, h := range sc.Header {
		out[i] = v.Expand(h)
	}
	return out
}

// nextMillisecond waits until the clock enters a new millisecond and
// returns it. Stores keep times to the millisecond, so every record Given
// wrote carries an earlier time than any write of the call that follows.
func nextMillisecond() time.Time {
	start := time.Now().UTC().Truncate(time.Millisecond)
	for {
		now := time.Now().UTC().Truncate(time.Millisecond)
		if now.After(start) {
			return now
		}
		time.Sleep(100 * time.Microsecond)
	}
}
