package credentials

import (
	"context"
	"errors"
	"fmt"

	"platform/kernel/query"
	"platform/kernel/store"
	"platform/kernel/tenant"
	"platform/modules/automation/webhook"
	"platform/modules/identity"
)

// SealedField is a field of per-customer records that holds a value sealed
// by the vault for its record ({v, iv, ct, tag}).
type SealedField struct{ Collection, Field string }

// SealedFields are every place sealed values are stored: a master key
// rotation re-seals them all. A module that stores sealed values adds its
// field here. Values stored in clear (a webhook secret saved before the
// installation had a key) are not sealed by a rotation.
var SealedFields = []SealedField{
	{Collection: Collection, Field: Field},
	{Collection: webhook.Collection, Field: "secret"},
}

// ResealCursor is where a rotation stands: the field (index into
// SealedFields), the customer, and the last record id done there.
type ResealCursor struct {
	Field    int    `json:"field"`
	Customer string `json:"customer"`
	After    string `json:"after"`
}

// ResealRound is what one batch did and where the next starts; Done when
// every field of every customer was seen.
type ResealRound struct {
	Next     ResealCursor `json:"next"`
	Done     bool         `json:"done"`
	Scanned  int64        `json:"scanned"`
	Resealed int64        `json:"resealed"`
}

// ErrNotCurrentKey: the vault does not seal with the key the rotation is
// for (this process was not restarted with the new key yet).
var ErrNotCurrentKey = errors.New("credentials: this process does not seal with the rotation's new master key")

// ResealBatch re-seals, under the vault's current key, at most limit
// sealed values from cur on, and answers where to go on. A value already
// under the current key is left as it is, so a batch repeated after a
// crash changes nothing twice. Each value is written with compare-and-set
// on its old form: a record edited meanwhile keeps the edit (sealed with
// the current key by the process that wrote it).
func (v *Vault) ResealBatch(ctx context.Context, st store.Store, keyID string, cur ResealCursor, limit int) (ResealRound, error) {
	if v == nil {
		return ResealRound{}, ErrNoMasterKey
	}
	if v.KeyID() != keyID {
		return ResealRound{}, fmt.Errorf("%w (it seals with %s, the rotation is to %s)", ErrNotCurrentKey, v.KeyID(), keyID)
	}
	round := ResealRound{Next: cur}
	for round.Scanned < int64(limit) && round.Next.Field < len(SealedFields) {
		if round.Next.Customer == "" {
			if err := nextCustomer(ctx, st, &round.Next); err != nil {
				return round, err
			}
			continue
		}
		full, err := v.resealPage(ctx, st, &round, limit-int(round.Scanned))
		if err != nil {
			return round, err
		}
		if !full { // this customer's field is done
			if err := nextCustomer(ctx, st, &round.Next); err != nil {
				return round, err
			}
		}
	}
	round.Done = round.Next.Field >= len(SealedFields)
	return round, nil
}

// nextCustomer moves c to the customer after c.Customer, or to the first
// customer of the next field when none is left.
func nextCustomer(ctx context.Context, st store.Store, c *ResealCursor) error {
	var filter query.Expr
	if c.Customer != "" {
		filter = query.Field{Path: "_id", Conds: []query.Cond{query.Compare{Op: query.OpGt, Value: c.Customer}}}
	}
	docs, err := st.Global(identity.Customers).Find(ctx, store.FindOptions{Filter: filter, Sort: []store.SortField{{Field: "_id"}}, Limit: 1, Fields: []string{"_id"}})
	if err != nil {
		return err
	}
	c.After = ""
	if len(docs) == 0 {
		c.Field++
		c.Customer = ""
		if c.Field < len(SealedFields) {
			return nextCustomer(ctx, st, c)
		}
		return nil
	}
	c.Customer, _ = docs[0]["_id"].(string)
	return nil
}

// resealPage re-seals up to limit records of the cursor's customer and
// field after its record id; full reports that the page was full (more
// may follow).
func (v *Vault) resealPage(ctx context.Context, st store.Store, round *ResealRound, limit int) (full bool, err error) {
	c := &round.Next
	f := SealedFields[c.Field]
	cctx := tenant.WithCustomer(ctx, c.Customer)
	filter := query.Expr(query.Field{Path: f.Field, Conds: []query.Cond{query.Exists{Want: true}}})
	if c.After != "" {
		filter = query.AllOf(filter, query.Field{Path: "_id", Conds: []query.Cond{query.Compare{Op: query.OpGt, Value: c.After}}})
	}
	coll := st.Collection(f.Collection)
	docs, err := coll.Find(cctx, store.FindOptions{Filter: filter, Sort: []store.SortField{{Field: "_id"}}, Limit: int64(limit), Fields: []string{f.Field}})
	if err != nil {
		return false, err
	}
	for _, d := range docs {
		id, _ := d["_id"].(string)
		changed, err := v.resealOne(cctx, coll, c.Customer, id, f.Field, d[f.Field])
		if err != nil {
			return false, fmt.Errorf("%s %s of customer %s: %w", f.Collection, id, c.Customer, err)
		}
		round.Scanned++
		if changed {
			round.Resealed++
		}
		c.After = id
	}
	return len(docs) == limit, nil
}

// resealOne re-seals one stored value unless it is in clear or already
// under the current key.
func (v *Vault) resealOne(ctx context.Context, coll store.Collection, customer, id, field string, stored any) (bool, error) {
	sealed, ok := stored.(store.Doc)
	if !ok || v.SealedWithCurrent(customer, id, sealed) {
		return false, nil
	}
	plain, err := v.Open(customer, id, sealed)
	if err != nil {
		return false, err // under no key this process holds: stop, never lose it
	}
	fresh, err := v.Seal(customer, id, plain)
	clear(plain)
	if err != nil {
		return false, err
	}
	_, err = coll.Update(ctx, query.AllOf(query.ID(id), query.Eq(field+".tag", sealed["tag"])), store.Update{Set: store.Doc{field: fresh}})
	if errors.Is(err, store.ErrNotFound) {
		return false, nil // changed or deleted meanwhile: the writer sealed with the current key
	}
	return err == nil, err
}
