package dispatch_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"platform/cmd/platform/app"
	"platform/kernel/events"
	"platform/kernel/query"
	"platform/kernel/settings"
	"platform/kernel/store"
	"platform/kernel/tenant"
	"platform/modules/crm"
	"platform/test/testenv"
	"platform/worker/dispatch"
)

// failingEvents is a store whose events cannot be read: every Find on
// them fails with the error.
type failingEvents struct {
	store.Store
	err error
}

func (s failingEvents) Collection(name string) store.Collection {
	c := s.Store.Collection(name)
	if name == events.Collection {
		return failingFind{c, s.err}
	}
	return c
}

type failingFind struct {
	store.Collection
	err error
}

func (f failingFind) Find(context.Context, store.FindOptions) ([]store.Doc, error) { return nil, f.err }

// oneCustomer lists a single customer.
type oneCustomer string

func (c oneCustomer) CustomerIDs(_ context.Context, skip, _ int64) ([]string, error) {
	if skip > 0 {
		return nil, nil
	}
	return []string{string(c)}, nil
}

// sweepFailing runs one sweep of customer over a store whose events fail
// with err, filing faults with the platform's Bug recorder, and returns
// the customer's Bug tasks.
func sweepFailing(t *testing.T, err error) []store.Doc {
	t.Helper()
	st := testenv.SQLiteStore(t)
	cfg, lerr := settings.Load("test", nil)
	require.NoError(t, lerr)
	cfg.DataDir = t.TempDir() // the master key it generates stays out of the tree
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	a, aerr := app.New(ctx, cfg, st, nil, testenv.Logger(t))
	require.NoError(t, aerr)
	t.Cleanup(func() { _ = a.Close() })
	customer := store.NewID()
	d := dispatch.NewDispatcher(dispatch.Deps{Store: failingEvents{st, err}, Log: testenv.Logger(t), Customers: oneCustomer(customer), Bugs: a.Bugs}, dispatch.Limits{})
	d.SweepOnce(ctx)
	bugs, ferr := st.Collection("tasks").Find(tenant.WithCustomer(ctx, customer), store.FindOptions{Filter: query.Eq("type", crm.TypeBug)})
	require.NoError(t, ferr)
	return bugs
}

// TestSweeperFaultFilesABugTask: a customer's sweep that fails for a
// reason of the code (the events cannot be decoded) files a Bug task for
// that customer, filed by the platform.
func TestSweeperFaultFilesABugTask(t *testing.T) {
	t.Parallel()
	bugs := sweepFailing(t, fmt.Errorf("decode event: %w", errors.New("unexpected BSON type")))
	require.Len(t, bugs, 1, "%v", bugs)
	assert.Equal(t, "Runtime error in event dispatcher, event sweep", bugs[0]["title"])
	assert.Contains(t, bugs[0]["signature"], "event dispatcher, event sweep")
	assert.EqualValues(t, 1, store.Int(bugs[0]["occurrences"]))
	assert.Equal(t, "000000000000000000000000", bugs[0]["createdBy"])
}

// TestSweeperOutageFilesNoBugTask: an unreachable store is no defect of
// the code: the log has it, a later sweep retries, and no task is filed.
func TestSweeperOutageFilesNoBugTask(t *testing.T) {
	t.Parallel()
	assert.Empty(t, sweepFailing(t, fmt.Errorf("find events: %w", store.ErrUnavailable)))
}
