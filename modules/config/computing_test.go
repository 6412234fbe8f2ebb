package config_test

import (
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"platform/kernel/query"
	"platform/kernel/settings"
	"platform/kernel/store"
	"platform/modules/config/computing"
	"platform/test/apitest"
	"platform/test/testenv"
)

// computingFixture is a platform with a worker whose compute provider is
// the simulator, on a local HTTP server speaking the provider protocol.
type computingFixture struct {
	*apitest.Env
	sim *computing.Simulator
}

func (f *computingFixture) For(t testing.TB) *computingFixture {
	return &computingFixture{f.Env.For(t), f.sim}
}

type computingScenario = apitest.Scenario[*computingFixture]

var computingRights = []string{"config.computingentities.*", "config.programs.*", "config.computinginstallations.*",
	"config.platformstates.view", "config.modulestate-cache.view"}

// simDelay is how long the simulator takes to move a machine: long
// enough that no move lands within the call that asked for it.
const simDelay = 700 * time.Millisecond

func newComputingFixture(t *testing.T) *computingFixture {
	t.Helper()
	sim := &computing.Simulator{Delay: simDelay, Token: "provider-token"}
	srv := httptest.NewServer(sim)
	t.Cleanup(srv.Close)
	env := apitest.New(t, apitest.Options{
		Platform: testenv.Options{Worker: true, Configure: func(c *settings.Config) {
			c.Computing.ProviderURL, c.Computing.ProviderToken = srv.URL, "provider-token"
			c.Computing.Poll, c.Computing.Deadline = 100*time.Millisecond, time.Minute
			c.OutboundAllow = append(c.OutboundAllow, "127.0.0.1")
		}},
		Modules: []string{"config"}, Rights: computingRights,
		Collections: []string{computing.Collection, computing.ProgramsCollection, computing.InstallationsCollection},
	})
	return &computingFixture{env, sim}
}

func (f *computingFixture) entity(name, typ string) string {
	return f.Create("/config/computingentities", map[string]any{"name": name, "type": typ, "ipAddress": "192.0.2.10", "tags": []string{"team-a"}})
}

// pending makes an entity with a stop under way (no workflow runs it).
func (f *computingFixture) pending(name string) apitest.IDs {
	id := f.Create("/config/computingentities", map[string]any{"name": name, "type": "vm-aws", "instanceId": "i-" + name})
	_, err := f.P.Store.Collection(computing.Collection).Update(f.P.Ctx(), query.ID(id), store.Update{Set: store.Doc{
		computing.FieldPendingAction: computing.Stop, computing.FieldWorkflowID: "computing-none", "awsState": "running"}})
	require.NoError(f.T, err)
	return apitest.IDs{"e": id}
}

// landed waits until the entity's action has settled and returns it.
func (f *computingFixture) landed(id string) store.Doc {
	f.T.Helper()
	var d store.Doc
	require.Eventually(f.T, func() bool {
		d = f.Stored(computing.Collection, id)
		_, pending := d[computing.FieldPendingAction]
		return d[computing.FieldLastAction] != nil && !pending
	}, 30*time.Second, 50*time.Millisecond, "the action settles")
	return d
}

// eventNames lists the entity's events once there are n: a settle
// writes the entity and then records its event, so the event may follow
// the state a moment later.
func (f *computingFixture) eventNames(id string, n int) []string {
	f.T.Helper()
	var out []string
	require.Eventually(f.T, func() bool {
		out = nil
		for _, ev := range f.Events() {
			if ev.Data["_id"] == id && strings.HasPrefix(ev.Name, computing.Collection+".") {
				out = append(out, strings.TrimPrefix(ev.Name, computing.Collection+"."))
			}
		}
		return len(out) >= n
	}, 10*time.Second, 20*time.Millisecond, "%d events of %s: %v", n, id, out)
	return out
}

// accepted checks a 202 answer: the entity pending on a workflow.
func accepted(action string) func(f *computingFixture, v apitest.IDs, r *testenv.Resp) {
	return func(f *computingFixture, v apitest.IDs, r *testenv.Resp) {
		rec := r.Payload()
		assert.Equal(f.T, action, rec[computing.FieldPendingAction])
		assert.True(f.T, strings.HasPrefix(rec[computing.FieldWorkflowID].(string), "computing-"), "the workflow id is answered")
	}
}

func TestComputingEntities(t *testing.T) {
	f := newComputingFixture(t)
	apitest.Run(t, f, []computingScenario{
		{Name: "create: stopped in the state field named after the cloud", Method: "POST", Path: "/config/computingentities",
			Body: map[string]any{"name": "web-1", "type": "vm-aws", "ipAddress": "2001:DB8::10", "tags": []string{"web", "cc-42"}}, Status: 201,
			Events: []string{"computingentities.created"},
			Then: func(f *computingFixture, _ apitest.IDs, r *testenv.Resp) {
				rec := r.Payload()
				assert.Equal(f.T, "stopped", rec["awsState"])
				assert.NotContains(f.T, rec, "gcpState")
				assert.NotContains(f.T, rec, "state")
				assert.Equal(f.T, "2001:db8::10", rec["ipAddress"], "stored canonical")
			}},
		{Name: "create: a container has the generic state", Method: "POST", Path: "/config/computingentities",
			Body: map[string]any{"name": "box", "type": "container"}, Status: 201, Events: []string{"computingentities.created"},
			Then: func(f *computingFixture, _ apitest.IDs, r *testenv.Resp) {
				assert.Equal(f.T, "stopped", r.Payload()["state"])
			}},
		{Name: "create: an invalid IP address is 422", Method: "POST", Path: "/config/computingentities",
			Body: map[string]any{"name": "bad-ip", "type": "vm-gcp", "ipAddress": "300.1.2.3"}, Status: 422, Field: "ipAddress", Codes: []string{"validation.format"}},
		{Name: "create: an IPv6 zone is 422", Method: "POST", Path: "/config/computingentities",
			Body: map[string]any{"name": "zone", "type": "vm-gcp", "ipAddress": "fe80::1%eth0"}, Status: 422, Field: "ipAddress", Codes: []string{"validation.format"}},
		{Name: "create: the state is the platform's", Method: "POST", Path: "/config/computingentities",
			Body: map[string]any{"name": "sneaky", "type": "vm-aws", "awsState": "running"}, Status: 422, Field: "awsState"},
		{Name: "create: an unknown type is 422", Method: "POST", Path: "/config/computingentities",
			Body: map[string]any{"name": "x", "type": "vm-azure"}, Status: 422, Field: "type", Codes: []string{"validation.enum"}},
		{Name: "create: a tag twice is 422", Method: "POST", Path: "/config/computingentities",
			Body: map[string]any{"name": "x", "type": "cron", "tags": []string{"a", "a"}}, Status: 422, Field: "tags"},
		{Name: "create: too many tags is 422", Method: "POST", Path: "/config/computingentities",
			Body: map[string]any{"name": "x", "type": "cron", "tags": manyTags(51)}, Status: 422, Field: "tags"},
		{Name: "patch: the type cannot change", Given: func(f *computingFixture) apitest.IDs { return apitest.IDs{"e": f.entity("fixed", "vm-aws")} },
			Method: "PATCH", Path: "/config/computingentities/{e}", Body: map[string]any{"type": "vm-gcp"}, Status: 422, Field: "type"},
		{Name: "start needs its right", Given: func(f *computingFixture) apitest.IDs { return apitest.IDs{"e": f.entity("norights", "vm-aws")} },
			Method: "POST", Path: "/config/computingentities/{e}/actions/start", Scopes: []string{"config.computingentities.view", "config.computingentities.edit"},
			Status: 403, Codes: []string{"auth.scope"}},
		{Name: "stop of a stopped entity is 409", Given: func(f *computingFixture) apitest.IDs { return apitest.IDs{"e": f.entity("idle", "vm-gcp")} },
			Method: "POST", Path: "/config/computingentities/{e}/actions/stop", Status: 409, Field: "gcpState", Codes: []string{"conflict.state"}},
		{Name: "another customer's entity is 404", Given: func(f *computingFixture) apitest.IDs { return apitest.IDs{"e": f.entity("mine", "vm-aws")} },
			Method: "POST", Path: "/config/computingentities/{e}/actions/start", Token: func(f *computingFixture) string { return f.Other }, Status: 404},
		{Name: "another customer cannot read it", Given: func(f *computingFixture) apitest.IDs { return apitest.IDs{"e": f.entity("hidden", "cron")} },
			Method: "GET", Path: "/config/computingentities/{e}", Token: func(f *computingFixture) string { return f.Other }, Status: 404},
		{Name: "pending: the machine cannot change", Given: func(f *computingFixture) apitest.IDs { return f.pending("busy-1") },
			Method: "PATCH", Path: "/config/computingentities/{e}", Body: map[string]any{"instanceId": "i-other"}, Status: 409, Field: "instanceId"},
		{Name: "pending: other fields can", Given: func(f *computingFixture) apitest.IDs { return f.pending("busy-2") },
			Method: "PATCH", Path: "/config/computingentities/{e}", Body: map[string]any{"tags": []string{"moved"}}, Status: 200,
			Events: []string{"computingentities.updated"}},
		{Name: "pending: no delete", Given: func(f *computingFixture) apitest.IDs { return f.pending("busy-3") },
			Method: "DELETE", Path: "/config/computingentities/{e}", Status: 409, Field: "pendingAction"},
		{Name: "start: 202, pending, then running", Given: func(f *computingFixture) apitest.IDs { return apitest.IDs{"e": f.entity("web-2", "vm-aws")} },
			Method: "POST", Path: "/config/computingentities/{e}/actions/start", Status: 202,
			Then: func(f *computingFixture, v apitest.IDs, r *testenv.Resp) {
				accepted("start")(f, v, r)
				d := f.landed(v["e"])
				assert.Equal(f.T, "running", d["awsState"])
				assert.Equal(f.T, "done", d[computing.FieldLastAction].(map[string]any)["outcome"])
				assert.Equal(f.T, r.Payload()[computing.FieldWorkflowID], d[computing.FieldWorkflowID])
				assert.Equal(f.T, computing.Running, f.sim.State(f.P.Customer.ID, v["e"]), "moved at the provider")
				assert.Equal(f.T, []string{"created", "started"}, f.eventNames(v["e"], 2))
			}},
		{Name: "terminated is final", Given: func(f *computingFixture) apitest.IDs {
			id := f.entity("doomed", "container")
			require.Equal(f.T, 202, f.P.Do("POST", "/config/computingentities/"+id+"/actions/terminate", f.Admin, nil).Status)
			require.Equal(f.T, "terminated", f.landed(id)["state"])
			f.eventNames(id, 2) // recorded before the call, not during it
			return apitest.IDs{"e": id}
		}, Method: "POST", Path: "/config/computingentities/{e}/actions/start", Status: 409, Field: "state", Codes: []string{"conflict.state"}},
	})
	apitest.Run(t, f, programScenarios())
	apitest.Run(t, f, stateScenarios())
	// On the same platform: one per test file.
	t.Run("moves", func(t *testing.T) { testComputingActionMoves(t, f.For(t)) })
	t.Run("provider refusal", func(t *testing.T) { testComputingProviderRefusal(t, f.For(t)) })
}

// testComputingActionMoves: start, stop and terminate each run their
// workflow against the provider; a second action while one is under way
// is refused, the same one asked again answers the same workflow.
func testComputingActionMoves(t *testing.T, f *computingFixture) {
	id := f.entity("moves", "vm-gcp")
	before := f.sim.Requests()
	act := func(action string) *testenv.Resp {
		return f.P.Do("POST", "/config/computingentities/"+id+"/actions/"+action, f.Admin, nil)
	}

	r := act("start")
	require.Equal(t, 202, r.Status, string(r.Body))
	wf := r.Payload()[computing.FieldWorkflowID]
	again := act("start")
	require.Equal(t, 202, again.Status, "the same action again is accepted")
	assert.Equal(t, wf, again.Payload()[computing.FieldWorkflowID], "and answers the same workflow")
	busy := act("stop")
	require.Equal(t, 409, busy.Status, "another action waits for the first")
	assert.Contains(t, string(busy.Body), "a start is under way")
	assert.Equal(t, "stopped", f.Stored(computing.Collection, id)["gcpState"], "the state moves only when the provider is done")
	assert.Equal(t, "running", f.landed(id)["gcpState"])

	for _, step := range []struct{ action, state string }{{"stop", "stopped"}, {"start", "running"}, {"terminate", "terminated"}} {
		r = act(step.action)
		require.Equal(t, 202, r.Status, "%s: %s", step.action, r.Body)
		assert.NotEqual(t, wf, r.Payload()[computing.FieldWorkflowID], "a new workflow per action")
		wf = r.Payload()[computing.FieldWorkflowID]
		assert.Equal(t, step.state, f.landed(id)["gcpState"], step.action)
	}
	assert.Equal(t, []string{"created", "started", "stopped", "started", "terminated"}, f.eventNames(id, 5))
	assert.Equal(t, before+4, f.sim.Requests(), "one provider request per action")
	require.Equal(t, 409, act("stop").Status, "terminated is final")
}

// testComputingProviderRefusal: a machine terminated outside the platform
// refuses the start; the entity records the failure and the provider's
// state, and announces actionfailed.
func testComputingProviderRefusal(t *testing.T, f *computingFixture) {
	id := f.Create("/config/computingentities", map[string]any{"name": "gone", "type": "vm-aws", "instanceId": "i-0abc123"})
	f.sim.Set(f.P.Customer.ID, "i-0abc123", computing.Terminated)
	r := f.P.Do("POST", "/config/computingentities/"+id+"/actions/start", f.Admin, nil)
	require.Equal(t, 202, r.Status, string(r.Body))
	d := f.landed(id)
	last := d[computing.FieldLastAction].(map[string]any)
	assert.Equal(t, "failed", last["outcome"])
	assert.Contains(t, last["failure"], "refused")
	assert.Equal(t, "stopped", d["awsState"], "no state was read after the refusal")
	assert.Equal(t, []string{"created", "actionfailed"}, f.eventNames(id, 2))
	assert.Equal(t, 202, f.P.Do("POST", "/config/computingentities/"+id+"/actions/start", f.Admin, nil).Status, "it may be asked again")
}

func manyTags(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = strings.Repeat("t", 1+i%9) + string(rune('a'+i%26)) + string(rune('a'+i/26))
	}
	return out
}

const sha = "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"

func (f *computingFixture) program(name, version string) string {
	return f.Create("/config/programs", map[string]any{"name": name, "version": version, "artefactUrl": "https://example.com/" + name + ".tgz", "checksum": sha})
}

// installed makes an entity, a program and an installation of it there.
func (f *computingFixture) installed(name string) apitest.IDs {
	v := apitest.IDs{"e": f.entity(name, "vm-aws"), "p": f.program(name, "1.0.0")}
	v["i"] = f.Create("/config/computinginstallations", map[string]any{"program": v["p"], "computingEntity": v["e"]})
	return v
}

func programScenarios() []computingScenario {
	prog := map[string]any{"name": "agent", "version": "1.2.0", "artefactUrl": "https://example.com/agent.tgz", "checksum": sha}
	return []computingScenario{
		{Name: "program: create", Method: "POST", Path: "/config/programs", Body: prog, Status: 201, Events: []string{"programs.created"}},
		{Name: "program: a version twice is 409", Given: func(f *computingFixture) apitest.IDs { f.program("twice", "1.0.0"); return apitest.IDs{} },
			Method: "POST", Path: "/config/programs", Body: map[string]any{"name": "twice", "version": "1.0.0", "artefactUrl": "https://example.com/a", "checksum": sha},
			Status: 409, Codes: []string{"conflict.duplicate"}},
		{Name: "program: a bad checksum is 422", Method: "POST", Path: "/config/programs",
			Body: map[string]any{"name": "x", "version": "1", "artefactUrl": "https://example.com/a", "checksum": "md5:abc"}, Status: 422, Field: "checksum"},
		{Name: "program: the artefact URL is checked", Method: "POST", Path: "/config/programs",
			Body: map[string]any{"name": "x", "version": "1", "artefactUrl": "not a url", "checksum": sha}, Status: 422, Field: "artefactUrl"},
		{Name: "installation: pending by default", Given: func(f *computingFixture) apitest.IDs {
			return apitest.IDs{"e": f.entity("host", "vm-aws"), "p": f.program("db", "15")}
		}, Method: "POST", Path: "/config/computinginstallations", Body: map[string]any{"program": "{p}", "computingEntity": "{e}"}, Status: 201,
			Events: []string{"computinginstallations.created"},
			Then: func(f *computingFixture, _ apitest.IDs, r *testenv.Resp) {
				assert.Equal(f.T, "pending", r.Payload()["status"])
			}},
		{Name: "installation: an unknown entity is 422", Given: func(f *computingFixture) apitest.IDs { return apitest.IDs{"p": f.program("lonely", "1")} },
			Method: "POST", Path: "/config/computinginstallations", Body: map[string]any{"program": "{p}", "computingEntity": "0123456789abcdef01234567"},
			Status: 422, Field: "computingEntity"},
		{Name: "installation: another customer's program is 422", Given: func(f *computingFixture) apitest.IDs {
			// Straight into the store: an event of B's, dispatched during
			// the call, would change B's snapshot.
			theirs := store.NewID()
			require.NoError(f.T, f.P.Store.Collection(computing.ProgramsCollection).Insert(f.OtherCtx, store.Doc{"_id": theirs, "name": "theirs", "version": "1",
				"artefactUrl": "https://example.com/t", "checksum": sha}))
			return apitest.IDs{"e": f.entity("host-2", "cron"), "p": theirs}
		}, Method: "POST", Path: "/config/computinginstallations", Body: map[string]any{"program": "{p}", "computingEntity": "{e}"}, Status: 422, Field: "program"},
		{Name: "installation: twice is 409", Given: func(f *computingFixture) apitest.IDs { return f.installed("dup") },
			Method: "POST", Path: "/config/computinginstallations", Body: map[string]any{"program": "{p}", "computingEntity": "{e}"}, Status: 409},
		{Name: "installation: listed under its entity", Given: func(f *computingFixture) apitest.IDs { return f.installed("listed") },
			Method: "GET", Path: "/config/computingentities/{e}/installations", Status: 200,
			Then: func(f *computingFixture, v apitest.IDs, r *testenv.Resp) {
				require.Len(f.T, r.List(), 1)
				assert.Equal(f.T, v["i"], r.List()[0]["_id"])
			}},
		{Name: "delete: an installed entity is 409", Given: func(f *computingFixture) apitest.IDs { return f.installed("busy") },
			Method: "DELETE", Path: "/config/computingentities/{e}", Status: 409, Codes: []string{"conflict.state"}},
		{Name: "delete: an installed program is 409", Given: func(f *computingFixture) apitest.IDs { return f.installed("used") },
			Method: "DELETE", Path: "/config/programs/{p}", Status: 409, Codes: []string{"conflict.state"}},
	}
}

func names(list []map[string]any) []any {
	var out []any
	for _, d := range list {
		out = append(out, d["name"])
	}
	return out
}

func stateScenarios() []computingScenario {
	tables := "/config/platformstates?_module=config&stateType=table&limit=100"
	return []computingScenario{
		{Name: "states: the tables of a module", Method: "GET", Path: tables, Status: 200,
			Then: func(f *computingFixture, _ apitest.IDs, r *testenv.Resp) {
				assert.Subset(f.T, names(r.List()), []any{"config.computingentities", "config.programs", "config.computinginstallations", "config.platformstates"})
				one := f.P.Do("GET", "/config/platformstates/"+r.List()[0]["_id"].(string), f.Admin, nil)
				assert.Equal(f.T, 200, one.Status, "one state by id")
			}},
		{Name: "states: the same for every customer", Method: "GET", Path: tables, Token: func(f *computingFixture) string { return f.Other }, Status: 200,
			Then: func(f *computingFixture, _ apitest.IDs, r *testenv.Resp) {
				mine := f.P.Do("GET", tables, f.Admin, nil)
				assert.Equal(f.T, names(mine.List()), names(r.List()))
			}},
		{Name: "states: read-only", Method: "POST", Path: "/config/platformstates",
			Body: map[string]any{"name": "x", "stateType": "table"}, Status: 405},
		{Name: "states: need their right", Method: "GET", Path: tables, Scopes: []string{"config.computingentities.view"}, Status: 403, Codes: []string{"auth.scope"}},
		{Name: "states: filtered on a declared field only", Method: "GET", Path: "/config/platformstates?filter=" + `{"hash":"x"}`, Status: 400},
		{Name: "module state cache: one summary per module", Method: "GET", Path: "/config/modulestate-cache?_module=config", Status: 200,
			Then: func(f *computingFixture, _ apitest.IDs, r *testenv.Resp) {
				require.Len(f.T, r.List(), 1)
				s := r.List()[0]
				assert.Equal(f.T, "config", s["overview"])
				assert.Contains(f.T, s["rights"], "config.computingentities.terminate")
			}},
	}
}
