// Package tenant carries the customer (tenant) of a call through ctx. The
// store layer reads it from there for every scoped query and write and
// refuses to work without it, so no handler can forget it.
package tenant

import (
	"context"
	"errors"
)

type key struct{}

// ErrMissing is returned where a customer is needed and ctx has none.
var ErrMissing = errors.New("tenant: no customer in context")

// WithCustomer returns ctx carrying the customer id.
func WithCustomer(ctx context.Context, customer string) context.Context {
	return context.WithValue(ctx, key{}, customer)
}

// Customer returns the customer id of ctx.
func Customer(ctx context.Context) (string, error) {
	c, _ := ctx.Value(key{}).(string)
	if c == "" {
		return "", ErrMissing
	}
	return c, nil
}
