package oauth

import (
	"context"
	"errors"
	"strings"
	"time"

	"platform/kernel/query"
	"platform/kernel/store"
)

// AttemptsCollection holds the failed sign-ins per throttled key, in the
// store so every replica shares them.
const AttemptsCollection = "loginattempts"

// Throttle slows password guessing without locking anyone out. It keeps
// two counts of failed sign-ins: per account and client address (pair),
// and per client address across accounts (address). Each has some free
// failures (FreePair, FreeAddress); after each further failure the count
// waits 1 s, 2 s, 4 s ... up to MaxDelay before the next attempt. An
// attacker's failures thus slow the attacker's address only: the account's
// owner signing in from elsewhere is never delayed by them. Counts are
// forgotten Forget after their last failure.
type Throttle struct {
	Store       store.Store
	FreePair    int64 // failures per account and address without delay
	FreeAddress int64 // failures per address, over all accounts, without delay
	MaxDelay    time.Duration
	Forget      time.Duration
	Now         func() time.Time // the clock (tests); time.Now when nil
}

// throttleKey is one throttled count and its free failures.
type throttleKey struct {
	id   string
	free int64
}

// keys are the counts a sign-in of email from addr at customer touches;
// the pair comes first, as succeeded expects.
func (t *Throttle) keys(customer, email, addr string) []throttleKey {
	account := customer + ":" + strings.ToLower(strings.TrimSpace(email))
	return []throttleKey{{"pair:" + account + "|" + addr, t.FreePair}, {"addr:" + addr, t.FreeAddress}}
}

// delay is the wait after a key's failures-th failure.
func (t *Throttle) delay(k throttleKey, failures int64) time.Duration {
	if failures <= k.free {
		return 0
	}
	return min(time.Second<<min(failures-k.free-1, 30), t.MaxDelay)
}

func (t *Throttle) now() time.Time {
	if t.Now != nil {
		return t.Now().UTC()
	}
	return time.Now().UTC()
}

// claim is one attempt counted against a key in advance.
type claim struct {
	key      throttleKey
	failures int64     // the count with this attempt
	before   time.Time // the key's wait before it
}

// admit counts the attempt as a failure of every key before the password
// is checked, so that concurrent guesses cannot all pass before the first
// failure is recorded: each attempt takes the next count of each key in
// turn (compare and set). When a key must still wait, nothing is counted
// and the wait is returned. An attempt that does not fail gives its
// counts back with succeeded or release.
func (t *Throttle) admit(ctx context.Context, keys []throttleKey) ([]claim, time.Duration, error) {
	var claims []claim
	for _, k := range keys {
		cl, wait, err := t.claim(ctx, k)
		if err != nil || wait > 0 {
			return nil, wait, errors.Join(err, t.release(ctx, claims))
		}
		claims = append(claims, cl)
	}
	return claims, 0, nil
}

// errLostRace: another attempt changed the key between read and write.
var errLostRace = errors.New("oauth: concurrent sign-in attempt")

// claim counts the attempt against k, re-reading the key after losing a
// race to a concurrent attempt; a key so contended asks the caller to wait.
func (t *Throttle) claim(ctx context.Context, k throttleKey) (claim, time.Duration, error) {
	for range 3 {
		cl, wait, err := t.tryClaim(ctx, k)
		if !errors.Is(err, errLostRace) {
			return cl, wait, err
		}
	}
	return claim{}, time.Second, nil
}

func (t *Throttle) tryClaim(ctx context.Context, k throttleKey) (claim, time.Duration, error) {
	c := t.Store.Global(AttemptsCollection)
	d, err := c.Get(ctx, k.id)
	if errors.Is(err, store.ErrNotFound) {
		d, err = c.Upsert(ctx, k.id, store.Update{SetOnInsert: store.Doc{"failures": int64(0)}})
	}
	if err != nil {
		return claim{}, 0, err
	}
	now := t.now()
	stored := store.Int(d["failures"])
	failures, until := t.state(d, now)
	if wait := until.Sub(now); wait > 0 {
		return claim{}, wait, nil
	}
	next := failures + 1
	_, err = c.Update(ctx, query.AllOf(query.ID(k.id), query.Eq("failures", stored)), store.Update{Set: store.Doc{
		"failures": next, "last": now, "until": now.Add(t.delay(k, next)),
	}})
	if errors.Is(err, store.ErrNotFound) {
		return claim{}, 0, errLostRace
	}
	return claim{key: k, failures: next, before: until}, 0, err
}

// state is a key's failures and the time until which it waits; failures
// older than Forget count no more.
func (t *Throttle) state(d store.Doc, now time.Time) (int64, time.Time) {
	last, _ := d["last"].(time.Time)
	until, _ := d["until"].(time.Time)
	if now.Sub(last) > t.Forget {
		return 0, until
	}
	return store.Int(d["failures"]), until
}

// succeeded forgets the pair's failures and takes back the attempt from
// the address's count (which keeps its earlier failures, or one valid
// account would let an address guess at the others for free).
func (t *Throttle) succeeded(ctx context.Context, claims []claim) error {
	if len(claims) == 0 {
		return nil
	}
	if _, err := t.Store.Global(AttemptsCollection).Delete(ctx, query.ID(claims[0].key.id)); err != nil {
		return err
	}
	return t.release(ctx, claims[1:])
}

// release takes back the counts of an attempt that did not fail, unless
// a later attempt took the next count meanwhile: then this one stays
// counted (erring towards slowing down).
func (t *Throttle) release(ctx context.Context, claims []claim) error {
	c := t.Store.Global(AttemptsCollection)
	var errs []error
	for _, cl := range claims {
		_, err := c.Update(ctx, query.AllOf(query.ID(cl.key.id), query.Eq("failures", cl.failures)), store.Update{Set: store.Doc{
			"failures": cl.failures - 1, "until": cl.before,
		}})
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
