// Package aggregation holds the activities of the Aggregator and
// AggregationRebuild workflows: batches of the read-model engine
// (modules/aggregation/readmodel), rebuild pages, and the requests that
// reach each customer's Aggregator.
package aggregation

import (
	"context"
	"time"

	"go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"

	"platform/kernel/query"
	"platform/kernel/store"
	"platform/kernel/temporalx"
	"platform/kernel/tenant"
	"platform/modules/aggregation/readmodel"
	"platform/modules/identity"
	"platform/workflows/contract"
)

// Defaults of the batch sizes.
const (
	DefaultBatch       = 200
	DefaultRebuildPage = 500
	maxBatch           = 1000
)

// Activities are the aggregation activities with their dependencies.
type Activities struct {
	Engine *readmodel.Engine
	// Temporal and TaskQueue reach the customers' Aggregators (rebuild
	// requests); nil Temporal fails those calls.
	Temporal  client.Client
	TaskQueue string
	// Batch bounds the events of one batch (0: DefaultBatch).
	Batch int
}

func (a *Activities) limit(asked, def int) int {
	switch {
	case asked > 0 && asked <= maxBatch:
		return asked
	case a.Batch > 0:
		return a.Batch
	}
	return def
}

// ApplyAggregation applies one batch of the customer's inbox.
func (a *Activities) ApplyAggregation(ctx context.Context, in contract.ApplyAggregationInput) (contract.ApplyAggregationResult, error) {
	r, err := a.Engine.ApplyPending(ctx, a.limit(in.Limit, DefaultBatch))
	return contract.ApplyAggregationResult{Events: r.Events, More: r.More, MaxLagMs: r.MaxLag.Milliseconds()}, err
}

// StartAggregationRebuild empties the rebuild's models (all when none are
// named: the cursor then names them all) and records it under way.
func (a *Activities) StartAggregationRebuild(ctx context.Context, in contract.StartAggregationRebuildInput) (contract.AggregationRebuildCursor, error) {
	cur := in.Cursor
	if len(cur.Models) == 0 {
		cur.Models = readmodel.Names()
	}
	if err := a.Engine.StartRebuild(ctx, cur.Models); err != nil {
		return cur, err
	}
	return cur, a.Engine.SetRebuild(ctx, progressDoc(cur))
}

// RebuildAggregationPage counts one page of records and moves the cursor
// on to the next source, and model, when a source is exhausted.
func (a *Activities) RebuildAggregationPage(ctx context.Context, in contract.RebuildAggregationPageInput) (contract.RebuildAggregationPageResult, error) {
	cur := in.Cursor
	if cur.Model >= len(cur.Models) {
		return contract.RebuildAggregationPageResult{Cursor: cur, Finished: true}, nil
	}
	next, n, err := a.Engine.RebuildPage(ctx, cur.Models[cur.Model], cur.Source, cur.After, a.limit(in.Limit, DefaultRebuildPage))
	if err != nil {
		return contract.RebuildAggregationPageResult{Cursor: cur}, err
	}
	cur.Done += int64(n)
	cur.After = next
	if next == "" {
		advance(&cur)
	}
	finished := cur.Model >= len(cur.Models)
	return contract.RebuildAggregationPageResult{Cursor: cur, Finished: finished}, a.Engine.SetRebuild(ctx, progressDoc(cur))
}

// advance moves to the next source, or to the next model's first.
func advance(cur *contract.AggregationRebuildCursor) {
	cur.Source++
	if m := readmodel.ByName(cur.Models[cur.Model]); m == nil || cur.Source >= len(m.Sources) {
		cur.Model, cur.Source = cur.Model+1, 0
	}
}

func progressDoc(cur contract.AggregationRebuildCursor) store.Doc {
	return store.Doc{"id": cur.ID, "models": store.List(cur.Models), "model": int64(cur.Model), "records": cur.Done}
}

// FinishAggregationRebuild records the rebuild finished.
func (a *Activities) FinishAggregationRebuild(ctx context.Context, in contract.FinishAggregationRebuildInput) error {
	return a.Engine.FinishRebuild(ctx, in.ID)
}

// AggregationCustomers pages through the customers in id order.
func (a *Activities) AggregationCustomers(ctx context.Context, in contract.AggregationCustomersInput) (contract.AggregationCustomersResult, error) {
	var filter query.Expr
	if in.After != "" {
		filter = query.Field{Path: "_id", Conds: []query.Cond{query.Compare{Op: query.OpGt, Value: in.After}}}
	}
	docs, err := a.Engine.Store.Global(identity.Customers).Find(ctx, store.FindOptions{
		Filter: filter, Sort: []store.SortField{{Field: "_id"}}, Limit: int64(in.Limit), Fields: []string{"_id"},
	})
	out := contract.AggregationCustomersResult{}
	for _, d := range docs {
		id, _ := d["_id"].(string)
		out.Customers = append(out.Customers, id)
	}
	return out, err
}

// RequestAggregationRebuild hands the request to the customer's
// Aggregator, starting it when it does not run.
func (a *Activities) RequestAggregationRebuild(ctx context.Context, in contract.RequestAggregationRebuildInput) error {
	ctx = tenant.WithCustomer(ctx, in.Customer)
	id := contract.AggregatorWorkflowID(in.Customer)
	_, err := a.Temporal.SignalWithStartWorkflow(ctx, id, contract.SignalAggregationRebuild, in.Request, client.StartWorkflowOptions{
		ID: id, TaskQueue: contract.QueueOf(a.TaskQueue, contract.WorkflowAggregator), Priority: temporalx.Fairness(ctx),
		WorkflowIDReusePolicy:    enums.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE,
		WorkflowIDConflictPolicy: enums.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING,
	}, contract.WorkflowAggregator, contract.AggregatorInput{})
	return err
}

// AggregationRebuildsDone lists the customers whose rebuild in.ID has not
// finished (their state does not name it as the last rebuilt).
func (a *Activities) AggregationRebuildsDone(ctx context.Context, in contract.AggregationRebuildsDoneInput) (contract.AggregationRebuildsDoneResult, error) {
	var out contract.AggregationRebuildsDoneResult
	for _, c := range in.Customers {
		doc, err := a.Engine.Status(tenant.WithCustomer(ctx, c))
		if err != nil {
			return out, err
		}
		if doc["rebuiltId"] != in.ID {
			out.Waiting = append(out.Waiting, c)
		}
	}
	return out, nil
}

// Waker wakes a customer's Aggregator (readmodel.Waker) with a
// signal-with-start.
type Waker struct {
	Starter *temporalx.Starter
}

var _ readmodel.Waker = (*Waker)(nil)

// Wake implements readmodel.Waker.
func (w *Waker) Wake(ctx context.Context, customer string) error {
	ctx, cancel := context.WithTimeout(tenant.WithCustomer(ctx, customer), 10*time.Second)
	defer cancel()
	return w.Starter.SignalOrStart(ctx, temporalx.Start{ID: contract.AggregatorWorkflowID(customer), Workflow: contract.WorkflowAggregator,
		Input: contract.AggregatorInput{}}, contract.SignalAggregationWake)
}
