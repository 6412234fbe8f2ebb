package credentials

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"platform/kernel/query"
	"platform/kernel/store"
	"platform/kernel/tenant"
	"platform/modules/identity"
)

// KeyCheck says where a vault's key comes from, for Check's refusal.
type KeyCheck struct {
	// KeyFile is the embedded installation's key file; empty when the key
	// is configured (PLATFORM_MASTER_KEY).
	KeyFile string
	// Generated: the key file was missing, the key is new (not written yet).
	Generated bool
	// AcceptLoss (PLATFORM_ACCEPT_LOST_MASTER_KEY): start with this key
	// although values sealed under another one exist; they stay unreadable.
	AcceptLoss bool
}

// ErrKeyRefused marks a start refused because the master key cannot open
// the store's sealed values: no retry fixes it.
var ErrKeyRefused = errors.New("credentials: the master key cannot open the stored sealed values")

// refusal is a key-file refusal: its text says what to do.
type refusal struct{ msg string }

func (r *refusal) Error() string        { return r.msg }
func (r *refusal) Is(target error) bool { return target == ErrKeyRefused }

// Check refuses a master key other than the one the store's sealed values
// (credentials, webhook secrets) are sealed under: a lost master.key
// replaced by a new one, or processes configured with different keys,
// would otherwise seal values the others cannot open and leave the old
// ones unreadable. The store's key record names the key; its sealed flag
// says values exist (NoteSealed). A record written before every sealing
// noted it is checked once by opening one sealed value (probe). Another
// key is accepted while nothing is sealed, or with kc.AcceptLoss, which
// answers the id of the key given up (empty when nothing was lost).
func (v *Vault) Check(ctx context.Context, st store.Store, kc KeyCheck) (lost string, err error) {
	if v == nil {
		return "", ErrNoMasterKey
	}
	coll := st.Global(KeysCollection)
	now := time.Now().UTC().Truncate(time.Millisecond)
	doc, err := coll.Upsert(ctx, keysDoc, store.Update{SetOnInsert: store.Doc{"keyId": v.KeyID(), "since": now, "sealed": false, "noted": true}})
	if err != nil {
		return "", fmt.Errorf("credential key check: %w", err)
	}
	stored, _ := doc["keyId"].(string)
	held, sealed := slices.Contains(v.KeyIDs(), stored), doc["sealed"] == true
	if !sealed && doc["noted"] != true {
		if sealed, held, err = v.probe(ctx, st, held); err != nil {
			return "", err
		}
	}
	switch {
	case held:
		return "", v.settle(ctx, coll, doc, stored, sealed)
	case !sealed:
		return "", v.takeOver(ctx, coll, stored, now)
	case kc.AcceptLoss:
		_, err := coll.Update(ctx, query.ID(keysDoc), store.Update{Set: store.Doc{
			"keyId": v.KeyID(), "since": now, "sealed": true, "noted": true, "lostKeyId": stored, "lostAt": now}})
		return stored, err
	}
	return "", v.refuse(kc, stored)
}

// settle records what a probe learnt, once: values exist (under this
// vault's key, when the record named another), or every sealing is noted
// from now on.
func (v *Vault) settle(ctx context.Context, coll store.Collection, doc store.Doc, stored string, sealed bool) error {
	if doc["noted"] == true {
		return nil
	}
	set := store.Doc{"noted": true, "sealed": sealed}
	if !slices.Contains(v.KeyIDs(), stored) {
		set["keyId"] = v.KeyID()
	}
	_, err := coll.Update(ctx, query.ID(keysDoc), store.Update{Set: set})
	return err
}

// takeOver registers this vault's key while nothing is sealed.
// Conditional, so that of two processes with different keys starting at
// once one wins and the other fails.
func (v *Vault) takeOver(ctx context.Context, coll store.Collection, stored string, now time.Time) error {
	_, err := coll.Update(ctx, query.AllOf(query.ID(keysDoc), query.Eq("keyId", stored), query.Eq("sealed", false)),
		store.Update{Set: store.Doc{"keyId": v.KeyID(), "since": now, "noted": true}})
	if errors.Is(err, store.ErrNotFound) {
		return wrongKey("another process registered a different master key meanwhile; every api and worker process needs the same key")
	}
	if err != nil {
		return fmt.Errorf("credential key check: %w", err)
	}
	return nil
}

// refuse says which key cannot open what, and how to recover. The key
// itself is never shown.
func (v *Vault) refuse(kc KeyCheck, stored string) error {
	const giveUp = "or start once with --accept-lost-master-key (PLATFORM_ACCEPT_LOST_MASTER_KEY=true) to give those values up and set them again (docs/config-keys.md)"
	switch {
	case kc.KeyFile == "":
		return wrongKey(fmt.Sprintf("the master key (id %s) is not the one the stored credentials are sealed under (id %s): "+
			"restore the original PLATFORM_MASTER_KEY or %s (every api and worker process needs the same key), %s", v.KeyID(), stored, MasterKeyFile, giveUp))
	case kc.Generated:
		return &refusal{fmt.Sprintf("%s is missing, and the store holds values sealed under master key %s (webhook secrets, credentials) that a new key cannot open: "+
			"restore %s from a backup (platform backup copies it into the backup directory), %s; nothing was changed", kc.KeyFile, stored, kc.KeyFile, giveUp)}
	}
	return &refusal{fmt.Sprintf("%s holds master key %s, but the store's values (webhook secrets, credentials) are sealed under master key %s: "+
		"restore this data directory's %s from a backup (platform backup copies it), %s", kc.KeyFile, v.KeyID(), stored, MasterKeyFile, giveUp)}
}

// probe looks for one sealed value (customer by customer, one query per
// sealed field, stopping at the first) and tries to authenticate it: it
// answers whether one exists and whether this vault opens it. Without
// one, held stays as the key record says.
func (v *Vault) probe(ctx context.Context, st store.Store, held bool) (sealed, opens bool, err error) {
	after := ""
	for {
		filter := query.Expr(nil)
		if after != "" {
			filter = query.Field{Path: "_id", Conds: []query.Cond{query.Compare{Op: query.OpGt, Value: after}}}
		}
		custs, err := st.Global(identity.Customers).Find(ctx, store.FindOptions{Filter: filter, Sort: []store.SortField{{Field: "_id"}}, Limit: 100, Fields: []string{"_id"}})
		if err != nil || len(custs) == 0 {
			return false, held, err
		}
		for _, c := range custs {
			after, _ = c["_id"].(string)
			found, opens, err := v.probeCustomer(ctx, st, after)
			if err != nil || found {
				return found, opens, err
			}
		}
	}
}

// probeCustomer tries the first sealed value of one customer's records.
func (v *Vault) probeCustomer(ctx context.Context, st store.Store, customer string) (found, opens bool, err error) {
	cctx := tenant.WithCustomer(ctx, customer)
	for _, f := range SealedFields {
		docs, err := st.Collection(f.Collection).Find(cctx, store.FindOptions{
			Filter: query.Field{Path: f.Field + ".tag", Conds: []query.Cond{query.Exists{Want: true}}}, Limit: 1, Fields: []string{f.Field}})
		if err != nil {
			return false, false, err
		}
		if len(docs) == 0 {
			continue
		}
		id, _ := docs[0]["_id"].(string)
		sealed, _ := docs[0][f.Field].(store.Doc)
		return true, v.opens(customer, id, sealed), nil
	}
	return false, false, nil
}

// opens reports whether sealed authenticates under any key of the vault.
func (v *Vault) opens(customer, id string, sealed store.Doc) bool {
	ks := v.keys.Load()
	for _, k := range append([]*masterKey{ks.current}, ks.accept...) {
		if _, _, _, err := k.verify(customer, id, sealed); err == nil {
			return true
		}
	}
	return false
}
