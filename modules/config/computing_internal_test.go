package config

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"platform/kernel/resource"
	"platform/kernel/store"
	"platform/kernel/tenant"
)

// TestComputingActionsWithoutProvider: with no provider configured the
// actions answer 503 naming the setting, before touching the entity.
func TestComputingActionsWithoutProvider(t *testing.T) {
	t.Parallel()
	r := ComputingEntities(Deps{})
	ctx := tenant.WithCustomer(context.Background(), "c1")
	for _, name := range []string{"start", "stop", "terminate"} {
		a := r.Action(name)
		require.NotNil(t, a, name)
		assert.True(t, a.Accepted, "%s answers 202", name)
		_, err := a.Run(ctx, &resource.ActionCall{Resource: r, ID: store.NewID(), Service: &resource.Service{},
			Record: store.Doc{"type": "vm-aws", "awsState": "stopped"}})
		require.Equal(t, resource.KindUnavailable, resource.KindOf(err), name)
		assert.Contains(t, err.Error(), "PLATFORM_COMPUTE_URL")
	}
}
