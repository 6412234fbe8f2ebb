// Package ratelimit counts requests per key in fixed windows stored in the
// database, so every API replica shares one budget. To keep the store off
// the hot path, each replica leases small blocks of the window's budget and
// serves requests from its block.
//
// A block is claimed by inserting its own document, {_id: key:window:n}:
// the unique _id lets exactly one replica have block n, on every store.
// (A counter document with $inc is not enough: FerretDB applies $inc and
// findAndModify as a read followed by a write, so two replicas incrementing
// at once both read the same count; two API processes on one FerretDB let
// 130 calls of 160 through a limit of 100.) So a window never grants more
// than its limit, whatever the number of replicas; a replica that stops
// getting requests leaves the rest of its block unused until the window ends.
package ratelimit

import (
	"context"
	"strconv"
	"sync"
	"time"

	"platform/kernel/query"
	"platform/kernel/store"
)

// Decision is the answer for one request.
type Decision struct {
	Limit, Remaining int
	Reset            time.Time
	Allowed          bool
}

// Collection holds one document per claimed block: key, window, block.
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
	used      int // requests granted in the window up to the end of our block
	next      int // the block to try claiming next
	exhausted bool
	claimed   []string // ids of our blocks in this window, removed after it
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
		l.forget(ctx, ls.claimed)
		ls.window, ls.left, ls.used, ls.next, ls.exhausted, ls.claimed = win, 0, 0, 0, false, nil
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

// renew claims the window's next free block: block n holds the requests
// n*block to (n+1)*block-1 of the window (the last one fewer, so the blocks
// add up to the limit). A block another replica holds already answers
// with a duplicate _id: the next one is tried. The lease serves every
// request of this replica for the key, so the renewal runs with a context
// of its own: the request that happens to trigger it may go away without
// failing it or leaving a block claimed in the store but not in the lease.
func (l *Limiter) renew(ctx context.Context, key string, ls *lease) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), renewTimeout)
	defer cancel()
	expires := time.Unix(0, (ls.window+2)*int64(l.window)).UTC()
	for ; ls.next*l.block < l.limit; ls.next++ {
		granted := min(l.block, l.limit-ls.next*l.block)
		id := key + ":" + strconv.FormatInt(ls.window, 10) + ":" + strconv.Itoa(ls.next)
		err := l.st.Global(Collection).Insert(ctx, store.Doc{"_id": id, "count": int64(granted), "expiresAt": expires})
		if store.IsDuplicate(err) {
			continue // another replica's block
		}
		if err != nil {
			return err
		}
		ls.claimed = append(ls.claimed, id)
		ls.left, ls.used = granted, ls.next*l.block+granted
		ls.next++
		return nil
	}
	ls.left, ls.used, ls.exhausted = 0, l.limit, true
	return nil
}

// forget removes a past window's blocks this replica claimed, in the
// background: they count nothing any more. (Blocks of a replica that died
// stay; each is one small document.)
func (l *Limiter) forget(ctx context.Context, ids []string) {
	if len(ids) == 0 {
		return
	}
	go func() {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
		defer cancel()
		for _, id := range ids {
			if _, err := l.st.Global(Collection).Delete(ctx, query.Eq("_id", id)); err != nil {
				return // the next window's clean-up is as good
			}
		}
	}()
}
