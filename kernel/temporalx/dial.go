// Package temporalx dials Temporal the one way every role does: with the
// tenant context propagator and the platform's logger.
package temporalx

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/workflow"

	"platform/kernel/tenant"
)

// Dial connects to the Temporal frontend at addr.
func Dial(ctx context.Context, addr, namespace string, logger *slog.Logger) (client.Client, error) {
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	c, err := client.DialContext(ctx, client.Options{
		HostPort:           addr,
		Namespace:          namespace,
		Logger:             log.NewStructuredLogger(logger.With("component", "temporal")),
		ContextPropagators: []workflow.ContextPropagator{tenant.Propagator{}},
	})
	if err != nil {
		return nil, fmt.Errorf("connect to Temporal at %s: %w", addr, err)
	}
	return c, nil
}

// Ready checks that the frontend answers.
func Ready(c client.Client) func(ctx context.Context) error {
	return func(ctx context.Context) error {
		_, err := c.CheckHealth(ctx, &client.CheckHealthRequest{})
		return err
	}
}
