// Package embedded runs the in-process servers of the embedded defaults: a
// MongoDB-wire store (FerretDB on SQLite) and a Temporal dev server with its
// Web UI. Only cmd/platform imports it, so test binaries stay small.
package embedded

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/FerretDB/FerretDB/ferretdb"
	"github.com/google/uuid"
	"github.com/temporalio/cli/temporalcli/devserver"
	"go.temporal.io/api/enums/v1"
	"go.temporal.io/server/common/dynamicconfig"

	"platform/kernel/store"
)

// FerretDB is a running embedded MongoDB-wire server.
type FerretDB struct {
	URI    string
	cancel context.CancelFunc
	done   chan struct{}
}

// StartFerretDB serves the MongoDB wire protocol on addr with SQLite files in dir.
func StartFerretDB(dir, addr string, log *slog.Logger) (*FerretDB, error) {
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return nil, fmt.Errorf("store directory: %w", err)
	}
	if err := checkFree(PartStore, addr); err != nil {
		return nil, err
	}
	if _, p, _ := net.SplitHostPort(addr); p == "0" {
		port, err := FreePort("127.0.0.1")
		if err != nil {
			return nil, err
		}
		addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	f, err := ferretdb.New(&ferretdb.Config{
		Listener:  ferretdb.ListenerConfig{TCP: addr},
		Handler:   "sqlite",
		SQLiteURL: "file:" + abs + "/",
		Logger:    log,
	})
	if err != nil {
		return nil, fmt.Errorf("start FerretDB: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = f.Run(ctx)
	}()
	uri := f.MongoDBURI()
	if err := waitDial(hostOf(uri), 10*time.Second); err != nil {
		cancel()
		return nil, err
	}
	return &FerretDB{URI: uri, cancel: cancel, done: done}, nil
}

// Stop closes the listener and the SQLite files.
func (f *FerretDB) Stop() {
	f.cancel()
	select {
	case <-f.done:
	case <-time.After(10 * time.Second):
	}
}

// TemporalOptions configures the embedded Temporal dev server.
type TemporalOptions struct {
	DatabaseFile string // empty: in memory
	IP           string
	Port         int
	UIPort       int // 0: no UI
	Namespace    string
	// SearchAttributes are registered at start so workflows can be found in the UI.
	SearchAttributes map[string]enums.IndexedValueType
	// FIFOQueues keep first in, first out; every other task queue is
	// ordered by fairness key (see fairness).
	FIFOQueues []string
}

// fairness is the dynamic config that orders the backlog of every task
// queue except those in fifo by fairness key (the customer,
// docs/queues.md), not first in, first out: one customer's burst then
// cannot hold up another's work.
// The fair backlog is kept in other tables (tasks_v2), and server 1.29.1
// does not move a queue's existing backlog there: switching a queue with
// a persisted backlog strands it (measured: activities scheduled before
// the switch never started). So the base task queue, whose backlog may
// predate the kind queues, stays first in, first out.
func fairness(fifo []string) []dynamicconfig.ConstrainedValue {
	out := []dynamicconfig.ConstrainedValue{{Value: true}}
	for _, q := range fifo {
		out = append(out, dynamicconfig.ConstrainedValue{Constraints: dynamicconfig.Constraints{TaskQueueName: q}, Value: false})
	}
	return out
}

// Temporal is a running embedded Temporal dev server.
type Temporal struct {
	Address string
	srv     *devserver.Server
}

// StartTemporal starts the dev server; the SQLite file uses WAL, measured
// about five times faster than the default journal (see NOTES).
func StartTemporal(o TemporalOptions, log *slog.Logger) (*Temporal, error) {
	if o.DatabaseFile != "" {
		if err := os.MkdirAll(filepath.Dir(o.DatabaseFile), 0o750); err != nil {
			return nil, fmt.Errorf("temporal directory: %w", err)
		}
	}
	addr := net.JoinHostPort(o.IP, strconv.Itoa(o.Port))
	if err := checkFree(PartTemporal, addr); err != nil {
		return nil, err
	}
	ns := o.Namespace
	if ns == "" {
		ns = "default"
	}
	opts := devserver.StartOptions{
		FrontendIP:             o.IP,
		FrontendPort:           o.Port,
		Namespaces:             uniq("default", ns),
		ClusterID:              uuid.NewString(),
		MasterClusterName:      "active",
		CurrentClusterName:     "active",
		InitialFailoverVersion: 1,
		Logger:                 log,
		LogLevel:               slog.LevelWarn,
		DatabaseFile:           o.DatabaseFile,
		SqlitePragmas:          map[string]string{"journal_mode": "wal", "synchronous": "1"},
		SearchAttributes:       o.SearchAttributes,
		DynamicConfigValues: map[string]any{
			// Let the worker see new workflow tasks without the dev server's
			// default long-poll delays slowing bursts of deliveries.
			"frontend.enableUpdateWorkflowExecution": true,
			// One server, a few pollers: with the default four partitions
			// per task queue, tasks that land in a partition no poller is
			// waiting on sat about 2 s in a backlog (measured by the
			// pipeline benchmark: raw workflows' p99 went from 2.2-4.3 s to
			// 0.2-0.4 s with one partition).
			"matching.numTaskqueueReadPartitions":  1,
			"matching.numTaskqueueWritePartitions": 1,
			"matching.enableFairness":              fairness(o.FIFOQueues),
		},
	}
	if o.DatabaseFile == "" {
		opts.SqlitePragmas = nil
	}
	if o.UIPort != 0 {
		uiAddr := net.JoinHostPort(o.IP, strconv.Itoa(o.UIPort))
		if err := checkFree(PartUI, uiAddr); err != nil {
			return nil, err
		}
		opts.UIIP, opts.UIPort = o.IP, o.UIPort
	}
	srv, err := devserver.Start(opts)
	if err != nil && o.DatabaseFile != "" && store.Corrupt(err) {
		return nil, fmt.Errorf("%w: %s: %v", store.ErrCorrupt, o.DatabaseFile, err)
	}
	if err != nil {
		return nil, fmt.Errorf("start Temporal: %w", err)
	}
	if err := waitDial(addr, 20*time.Second); err != nil {
		srv.Stop()
		return nil, err
	}
	return &Temporal{Address: addr, srv: srv}, nil
}

// Stop shuts the server down.
func (t *Temporal) Stop() { t.srv.Stop() }

// FreePort asks the kernel for an unused TCP port on ip.
func FreePort(ip string) (int, error) {
	l, err := net.Listen("tcp", net.JoinHostPort(ip, "0"))
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// The parts of the embedded servers that listen, for ListenError.
const (
	PartStore    = "store"    // FerretDB's MongoDB wire protocol
	PartTemporal = "temporal" // Temporal's frontend
	PartUI       = "ui"       // Temporal's Web UI
)

// ListenError is an address a part cannot listen on, mostly because
// another process holds it (InUse); the caller names the setting that
// chose it.
type ListenError struct {
	Part, Addr string
	Err        error
}

func (e *ListenError) Error() string {
	return fmt.Sprintf("%s address %s: %v", e.Part, e.Addr, e.Err)
}

func (e *ListenError) Unwrap() error { return e.Err }

// InUse says another process listens there.
func (e *ListenError) InUse() bool { return errors.Is(e.Err, syscall.EADDRINUSE) }

func checkFree(part, addr string) error {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return &ListenError{Part: part, Addr: addr, Err: err}
	}
	return l.Close()
}

func waitDial(addr string, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			return c.Close()
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s did not start listening within %s", addr, limit)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// hostOf extracts host:port from mongodb://host:port/.
func hostOf(uri string) string {
	u, err := url.Parse(uri)
	if err != nil {
		return uri
	}
	return u.Host
}

func uniq(a, b string) []string {
	if a == b {
		return []string{a}
	}
	return []string{a, b}
}
