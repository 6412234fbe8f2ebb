package main

import (
	"context"
	"errors"
	"net"
	"syscall"
	"time"

	"go.temporal.io/api/serviceerror"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"platform/kernel/store"
)

// The start-up retrier sorts every failure into one of three kinds:
//   - permanent (startup.go): no retry can fix it (a bad setting); the
//     process stops at once;
//   - transient (here): a dependency over the network does not answer yet
//     (MongoDB, Temporal, a connection refused or timed out); retried
//     without end, since the process started before it or it restarts;
//   - anything else (an index creation racing another replica, a namespace
//     not registered yet): retried until PLATFORM_STARTUP_TIMEOUT.

// attemptTimeout bounds one attempt of a start-up step, so an attempt that
// hangs on a dependency that does not answer ends and is retried.
const attemptTimeout = 2 * time.Minute

// transient reports whether err says that a dependency reached over the
// network is not reachable now. remoteStore: the store is MongoDB (or
// FerretDB) at MONGODB_URI; the embedded SQLite store is a local file, and
// its failures are not waited out.
func transient(err error, remoteStore bool) bool {
	switch {
	case errors.Is(err, store.ErrUnavailable):
		return remoteStore
	case errors.Is(err, context.DeadlineExceeded): // an attempt's own time-out
		return true
	case temporalUnavailable(err):
		return true
	}
	var dns *net.DNSError
	var op *net.OpError
	return errors.As(err, &dns) || errors.As(err, &op) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.EHOSTUNREACH) || errors.Is(err, syscall.ENETUNREACH)
}

// temporalUnavailable: the frontend is not reachable or a service behind
// it (history, matching) is not serving yet.
func temporalUnavailable(err error) bool {
	var unavailable *serviceerror.Unavailable
	var deadline *serviceerror.DeadlineExceeded
	if errors.As(err, &unavailable) || errors.As(err, &deadline) {
		return true
	}
	var grpc interface{ GRPCStatus() *status.Status }
	if errors.As(err, &grpc) {
		switch grpc.GRPCStatus().Code() {
		case codes.Unavailable, codes.DeadlineExceeded:
			return true
		}
	}
	return false
}
