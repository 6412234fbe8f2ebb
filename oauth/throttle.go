package oauth

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"time"

	"platform/query"
	"platform/store"
)

// AttemptsCollection counts failed sign-ins per account and per client
// address in fixed windows, in the store so every replica shares them.
const AttemptsCollection = "loginattempts"

// Throttle limits password guessing: after PerAccount failures for one
// e-mail of one customer, or PerAddress failures from one client address,
// within Window, sign-in is refused until the window ends. (A locked account
// is the usual price of stopping online guessing; the lock is temporary.)
type Throttle struct {
	Store      store.Store
	PerAccount int64
	PerAddress int64
	Window     time.Duration
}

func accountKey(customer, email string) string {
	return "acct:" + customer + ":" + strings.ToLower(strings.TrimSpace(email))
}

func addressKey(addr string) string { return "addr:" + addr }

func (t *Throttle) limit(key string) int64 {
	if strings.HasPrefix(key, "acct:") {
		return t.PerAccount
	}
	return t.PerAddress
}

// Blocked returns how long sign-in stays refused for any of keys (0: allowed).
func (t *Throttle) Blocked(ctx context.Context, keys ...string) (time.Duration, error) {
	var wait time.Duration
	for _, k := range keys {
		d, err := t.Store.Global(AttemptsCollection).Get(ctx, k)
		if errors.Is(err, store.ErrNotFound) {
			continue
		} else if err != nil {
			return 0, err
		}
		start, _ := d["windowStart"].(time.Time)
		n := store.Int(d["failures"])
		if left := time.Until(start.Add(t.Window)); left > 0 && n >= t.limit(k) {
			wait = max(wait, left)
		}
	}
	return wait, nil
}

// Failed counts one failure for each key: a stale window restarts at 1
// (compare-and-set on its start), a current one is incremented atomically.
func (t *Throttle) Failed(ctx context.Context, keys ...string) error {
	c := t.Store.Global(AttemptsCollection)
	for _, k := range keys {
		now := time.Now().UTC()
		stale := query.AllOf(query.ID(k), query.Field{Path: "windowStart", Conds: []query.Cond{query.Compare{Op: query.OpLt, Value: now.Add(-t.Window)}}})
		_, err := c.Update(ctx, stale, store.Update{Set: store.Doc{"failures": int64(1), "windowStart": now}})
		if errors.Is(err, store.ErrNotFound) {
			_, err = c.Upsert(ctx, k, store.Update{Inc: map[string]any{"failures": int64(1)}, SetOnInsert: store.Doc{"windowStart": now}})
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// Succeeded clears an account's failures (the address keeps its count).
func (t *Throttle) Succeeded(ctx context.Context, key string) error {
	_, err := t.Store.Global(AttemptsCollection).Delete(ctx, query.ID(key))
	return err
}

// clientAddress is the caller's IP. X-Forwarded-For is believed only from
// a loopback or private peer (the gateway in front of the replicas), and
// then only its last hop, which that proxy appended itself.
func clientAddress(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	ip := net.ParseIP(host)
	if ip == nil || !(ip.IsLoopback() || ip.IsPrivate()) {
		return host
	}
	xff := r.Header.Get("X-Forwarded-For")
	if xff == "" {
		return host
	}
	parts := strings.Split(xff, ",")
	if last := strings.TrimSpace(parts[len(parts)-1]); net.ParseIP(last) != nil {
		return last
	}
	return host
}
