package e2e

import (
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"platform/test/testenv"
)

// startupRounds is how often the replicas are started together: the
// failure depends on how their index creations interleave, so one round
// proves little.
const startupRounds = 10

// TestReplicasStartedTogetherAllBecomeReady: two `platform api` and one
// `platform worker` started at the same moment against one `platform infra`
// (as a deployment starts them) all become ready, round after round, each
// round on a fresh database so that every round creates every index anew.
func TestReplicasStartedTogetherAllBecomeReady(t *testing.T) {
	t.Parallel()
	c := newCluster(t)
	failed, retried := 0, 0
	for round := 1; round <= startupRounds; round++ {
		n, err := c.startTogether(round)
		retried += n
		if err != nil {
			failed++
			t.Errorf("round %d: %v", round, err)
		}
	}
	t.Logf("%d of %d rounds failed; %d start-up steps were retried", failed, startupRounds, retried)
}

// startTogether starts the three processes of one round at once, waits
// until each is ready, and stops them. It returns how many start-up steps
// were retried.
func (c *cluster) startTogether(round int) (retries int, err error) {
	db := fmt.Sprintf("startup_round_%d", round)
	ports := []int{freePort(c.t), freePort(c.t)}
	var procs []*replica
	for i, port := range ports {
		procs = append(procs, &replica{name: fmt.Sprintf("api %d", i+1), role: c.run("api", nil, c.replicaEnv(db, port)),
			ready: readyzAnswers200(fmt.Sprintf("http://127.0.0.1:%d/readyz", port))})
	}
	w := c.run("worker", nil, c.replicaEnv(db, freePort(c.t)))
	procs = append(procs, &replica{name: "worker", role: w, ready: func() bool { return strings.Contains(w.stderr.String(), "worker polling") }})
	// Generous: three processes and the infra share two busy cores.
	err = awaitAll(procs, time.Now().Add(90*time.Second))
	for _, p := range procs {
		p.role.kill()
		retries += strings.Count(p.role.stderr.String(), "start-up step failed; retrying")
	}
	return retries, err
}

// awaitAll waits for every replica to be ready and reports those that are not.
func awaitAll(procs []*replica, deadline time.Time) error {
	var errs []error
	for _, p := range procs {
		errs = append(errs, p.await(deadline))
	}
	return errors.Join(errs...)
}

// replicaEnv is the cluster's environment with the round's database and
// the replica's own HTTP port (the last value of a variable wins).
func (c *cluster) replicaEnv(db string, port int) []string {
	return append(c.env(), "PLATFORM_MONGODB_DATABASE="+db, fmt.Sprintf("PLATFORM_HTTP_ADDR=127.0.0.1:%d", port))
}

// replica is one process of a round and how to tell that it is ready.
type replica struct {
	name  string
	role  *role
	ready func() bool
}

func (r *replica) await(deadline time.Time) error {
	for time.Now().Before(deadline) {
		select {
		case <-r.role.exited:
			return fmt.Errorf("%s exited: %s", r.name, tail(r.role.stderr.String(), 2000))
		default:
		}
		if r.ready() {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("%s not ready in time: %s", r.name, tail(r.role.stderr.String(), 2000))
}

func readyzAnswers200(url string) func() bool {
	return func() bool {
		res, err := http.Get(url)
		if err != nil {
			return false
		}
		res.Body.Close()
		return res.StatusCode == http.StatusOK
	}
}

// TestAPIStartedBeforeItsInfraWaitsForIt: an API whose store and Temporal
// are not up yet listens at once, alive (/healthz 200) but not ready
// (/readyz 503 "starting", other routes 503 with Retry-After), retries,
// and becomes ready once `platform infra` comes up on the addresses it
// was given.
func TestAPIStartedBeforeItsInfraWaitsForIt(t *testing.T) {
	t.Parallel()
	bin, err := testenv.PlatformBinary()
	require.NoError(t, err)
	c := &cluster{t: t, bin: bin, data: t.TempDir(), http: freePort(t)}
	storeAddr, temporalPort := fmt.Sprintf("127.0.0.1:%d", freePort(t)), freePort(t)
	c.infra = map[string]string{"MONGODB_URI": "mongodb://" + storeAddr + "/", "TEMPORAL_ADDRESS": fmt.Sprintf("127.0.0.1:%d", temporalPort)}
	api := c.run("api", nil, c.env())
	c.waitFor(api, "API listener", func() bool { return strings.Contains(api.stderr.String(), "start-up step failed; retrying") })

	status, _, err := callAPI(c.baseURL(), "GET", "/healthz", "", nil)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, status, "alive while waiting for the store")
	status, env, err := callAPI(c.baseURL(), "GET", "/readyz", "", nil)
	require.NoError(t, err)
	require.Equal(t, http.StatusServiceUnavailable, status)
	meta, _ := env["meta"].(map[string]any)
	require.Contains(t, meta["errors"], map[string]any{"code": "dependency.unavailable", "field": "process", "message": "starting"})
	res, err := http.Get(c.baseURL() + "/crm/consumers")
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, http.StatusServiceUnavailable, res.StatusCode)
	require.Equal(t, "1", res.Header.Get("Retry-After"))

	c.run("infra", []string{"--data", filepath.Join(c.data, "infra"), "--store-addr", storeAddr,
		"--temporal-port", fmt.Sprint(temporalPort), "--temporal-ui-port", "off", "--log-level", "error"}, nil)
	c.waitFor(api, "API", readyzAnswers200(c.baseURL()+"/readyz"))
}

// TestStartupWaitsForAnUnreachableStorePastItsTimeout: a store that does
// not answer is waited for past PLATFORM_STARTUP_TIMEOUT (replicas may
// start long before their servers), each failure logged with what the
// retry waits for; SIGTERM still ends the wait at once. (Failures other
// than an unreachable dependency end at the time-out:
// cmd/platform's TestRetrierWaitsOutTransientErrorsOnly.)
func TestStartupWaitsForAnUnreachableStorePastItsTimeout(t *testing.T) {
	t.Parallel()
	bin, err := testenv.PlatformBinary()
	require.NoError(t, err)
	c := &cluster{t: t, bin: bin, data: t.TempDir(), http: freePort(t)}
	c.infra = map[string]string{"MONGODB_URI": fmt.Sprintf("mongodb://127.0.0.1:%d/", freePort(t)), "TEMPORAL_ADDRESS": "127.0.0.1:1"}
	api := c.run("api", nil, append(c.env(), "PLATFORM_STARTUP_TIMEOUT=1s"))
	c.waitFor(api, "the third retry", func() bool {
		return strings.Count(api.stderr.String(), `"retryUntil":"reachable"`) >= 3
	})
	select {
	case <-api.exited:
		t.Fatalf("exited while its store was unreachable\n%s", api.stderr.String())
	case <-time.After(2 * time.Second): // already past the 1 s time-out
	}
	require.Contains(t, api.stderr.String(), `"step":"open the store"`)
	require.NoError(t, api.cmd.Process.Signal(syscall.SIGTERM))
	select {
	case <-api.exited:
	case <-time.After(30 * time.Second):
		t.Fatalf("SIGTERM did not end the wait\n%s", api.stderr.String())
	}
	require.Equal(t, 0, api.cmd.ProcessState.ExitCode(), "stopped during start-up: %s", api.stderr.String())
}
