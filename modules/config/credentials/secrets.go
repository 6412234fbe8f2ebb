package credentials

import (
	"context"
	"fmt"
	"sort"

	"platform/kernel/query"
	"platform/kernel/store"
	"platform/kernel/tenant"
)

// Collection holds the credential records (per customer); the sealed
// values are in their Field.
const (
	Collection = "credentials"
	Field      = "credentials"
)

// Credential states (_status).
const (
	StatusActive  = "active"
	StatusExpired = "expired"
	StatusRevoked = "revoked"
)

// MaxSecrets bounds how many credentials Secrets opens for one call.
const MaxSecrets = 1000

// Rights on credentials that pipelines check. Decrypt shows the clear
// values to its holder, so it covers use too: refusing use to someone who
// may decrypt would protect nothing.
const (
	RightUse     = "config.credentials.use"
	RightDecrypt = "config.credentials.decrypt"
)

// MayUse reports whether a holder of rights (answered by allows) may have
// a pipeline read a credential's values.
func MayUse(allows func(right string) bool) bool {
	return allows(RightUse) || allows(RightDecrypt)
}

// Secrets returns the clear values of the named active credentials of the
// customer in ctx, keyed by credential name, for pipeline templates
// ({{secrets.<name>.<key>}}). Only the credentials a step names are opened:
// a step never holds the clear values of others. Expired, revoked and
// unknown names are left out. A credential that does not open fails the
// call (naming it, never a value): a template silently missing a secret
// would be worse. Callers redact the values from what they log or store.
func (v *Vault) Secrets(ctx context.Context, st store.Store, names []string) (map[string]any, error) {
	if v == nil {
		return nil, ErrNoMasterKey
	}
	cust, err := tenant.Customer(ctx)
	if err != nil {
		return nil, err
	}
	if len(names) == 0 {
		return map[string]any{}, nil
	}
	docs, err := st.Collection(Collection).Find(ctx, store.FindOptions{
		Filter: query.AllOf(query.Eq("_status", StatusActive), query.Field{Path: "name", Conds: []query.Cond{query.In{Values: stringsAsAny(names)}}}),
		Sort:   []store.SortField{{Field: "_id"}},
		Limit:  MaxSecrets,
		Fields: []string{"name", Field},
	})
	if err != nil {
		return nil, err
	}
	out := make(map[string]any, len(docs))
	for _, d := range docs {
		id, _ := d["_id"].(string)
		name, _ := d["name"].(string)
		sealed, _ := d[Field].(map[string]any)
		plain, err := v.Open(cust, id, sealed)
		if err != nil {
			return nil, fmt.Errorf("credential %q (%s): %w", name, id, err)
		}
		out[name] = plain
	}
	return out, nil
}

func stringsAsAny(s []string) []any {
	out := make([]any, len(s))
	for i, e := range s {
		out[i] = e
	}
	return out
}

// Leaves lists every non-empty string found in secrets, at any depth,
// without repeats and longest first, so a caller replacing them in text
// replaces a secret before any shorter secret it contains.
func Leaves(secrets map[string]any) []string {
	seen := map[string]bool{}
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			if x != "" {
				seen[x] = true
			}
		case map[string]any:
			for _, e := range x {
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(secrets)
	out := make([]string, 0, len(seen))
	for s := range seen {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool {
		if len(out[i]) != len(out[j]) {
			return len(out[i]) > len(out[j])
		}
		return out[i] < out[j]
	})
	return out
}
