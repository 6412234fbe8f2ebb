// Package ratelimit counts requests per key in fixed windows stored in the
// database, so every API replica shares one budget. To keep the store off
// the hot path, each replica leases small blocks of the window's budget with
// one atomic increment and serves requests from its block; a replica can
// overshoot a window by at most one unused block.
package ratelimit

import (
	"context"
	"strconv"
	"sync"
	"time"

	"platform/kernel/store"
)

// Decision is the answer for one request.
type Decision struct {
	Limit, Remaining int
	Reset            time.Time
	Allowed          bool
}

// Collection holds one counter document per key and window.
const Collection = "ratelimits"

// Limiter is a shared fixed-window limiter.
type Limiter struct {
	st     store.Store
	limit  int
	window time.Duration
	block  int
	now    func() time.Time

	mu     sync.Mutex
	leases map[string]*lease
}

type lease struct {
	mu        sync.Mutex
	window    int64
	left      int // requests left in this replica's block
	used      int // the window's count in the store after our last lease
	exhausted bool
}

// New returns a limiter of limit requests per window.
func New(st store.Store, limit int, window time.Duration) *Limiter {
	block := limit / 50
	if block < 1 {
		block = 1
	}
	if block > 50 {
		block = 50
	}
	return &Limiter{st: st, limit: limit, window: window, block: block, now: time.Now, leases: map[string]*lease{}}
}

// Take counts one request for key.
func (l *Limiter) Take(ctx context.Context, key string) (Decision, error) {
	now := l.now()
	win := now.UnixNano() / int64(l.window)
	reset := time.Unix(0, (win+1)*int64(l.window))
	ls := l.leaseOf(key)
	ls.mu.Lock()
	defer ls.mu.Unlock()
	if ls.window != win {
		ls.window, ls.left, ls.used, ls.exhausted = win, 0, 0, false
	}
	if ls.left == 0 && !ls.exhausted {
		if err := l.renew(ctx, key, ls); err != nil {
			return Decision{}, err
		}
	}
	info := Decision{Limit: l.limit, Reset: reset}
	if ls.left == 0 {
		return info, nil
	}
	ls.left--
	info.Allowed = true
	info.Remaining = max(l.limit-ls.used+ls.left, 0)
	return info, nil
}

func (l *Limiter) leaseOf(key string) *lease {
	l.mu.Lock()
	defer l.mu.Unlock()
	ls := l.leases[key]
	if ls == nil {
		ls = &lease{}
		l.leases[key] = ls
	}
	return ls
}

// renewTimeout bounds a lease renewal.
const renewTimeout = 10 * time.Second

// renew takes a block from the shared counter of the window. The lease
// serves every request of this replica for the key, so the renewal runs
// with a context of its own: the request that happens to trigger it may
// go away without failing it or leaving the block counted in the store
// but not in the lease.
func (l *Limiter) renew(ctx context.Context, key string, ls *lease) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), renewTimeout)
	defer cancel()
	id := key + ":" + strconv.FormatInt(ls.window, 10)
	doc, err := l.st.Global(Collection).Upsert(ctx, id, store.Update{
		Inc:         map[string]any{"count": int64(l.block)},
		SetOnInsert: store.Doc{"expiresAt": time.Unix(0, (ls.window+2)*int64(l.window)).UTC()},
	})
	if err != nil {
		return err
	}
	total := int(store.Int(doc["count"]))
	granted := l.block
	if over := total - l.limit; over > 0 {
		granted = max(l.block-over, 0)
	}
	ls.left, ls.used = granted, min(total, l.limit)
	ls.exhausted = granted < l.block
	return nil
}
