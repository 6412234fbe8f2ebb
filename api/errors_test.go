package api

import (
	"errors"
	"fmt"
	"net/http"
	"testing"

	"platform/kernel/resource"
	"platform/kernel/store"
)

func TestAsError(t *testing.T) {
	cases := []struct {
		err  error
		want int
	}{
		{fmt.Errorf("hook: %w", store.ErrUnavailable), http.StatusServiceUnavailable},
		{resource.NotFound("pipeline"), http.StatusNotFound},
		{resource.Conflict("_status", "done"), http.StatusConflict},
		{fmt.Errorf("action: %w", resource.Unavailable("busy")), http.StatusServiceUnavailable},
		{errors.New("boom"), http.StatusInternalServerError},
	}
	for _, c := range cases {
		if got := AsError(c.err); got.Status != c.want {
			t.Errorf("AsError(%v) = %d, want %d", c.err, got.Status, c.want)
		}
		if got := AsError(c.err); got.Status >= 500 && got.Cause == nil {
			t.Errorf("AsError(%v) lost the cause for the logs", c.err)
		}
	}
}
