package testenv

import (
	"context"
	"time"

	"github.com/stretchr/testify/require"

	"platform/kernel/query"
	"platform/kernel/store"
)

// AwaitWorkflow waits, at most a minute, until the workflow id has ended,
// and fails the test if it failed.
func (p *Platform) AwaitWorkflow(id string) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	require.NoError(p.t, p.Temporal.GetWorkflow(ctx, id, "").Get(ctx, nil), "workflow %s", id)
}

// Stored is the test customer's record id of the collection.
func (p *Platform) Stored(collection, id string) store.Doc {
	p.t.Helper()
	doc, err := p.Store.Collection(collection).Get(p.Ctx(), id)
	require.NoError(p.t, err)
	return doc
}

// EventuallyStored waits, at most a minute, until cond holds for the
// test customer's record id of the collection, and answers it.
func (p *Platform) EventuallyStored(collection, id string, cond func(store.Doc) bool, msg string) store.Doc {
	p.t.Helper()
	var doc store.Doc
	require.Eventually(p.t, func() bool {
		var err error
		doc, err = p.Store.Collection(collection).Get(p.Ctx(), id)
		return err == nil && cond(doc)
	}, time.Minute, 50*time.Millisecond, msg)
	return doc
}

// CountEvents counts the test customer's recorded events of that name.
func (p *Platform) CountEvents(name string) int {
	p.t.Helper()
	n, err := p.Store.Collection("events").Count(p.Ctx(), query.Eq("name", name))
	require.NoError(p.t, err)
	return int(n)
}
