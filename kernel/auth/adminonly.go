package auth

import (
	"sort"
	"strings"
	"sync"
)

// AdminRole is the role that holds the admin-only rights. It holds every
// one of them whatever its list of rights says; no other role, and no
// right a user holds directly, gives one (identity.EffectiveRights).
const AdminRole = "admin"

// adminOnly is the set of rights declared admin-only (resource
// declarations, resource.Resource.AdminOnly). It is process-wide like the
// declarations it comes from: every process mounts the same modules.
var adminOnly sync.Map // right -> struct{}

// DeclareAdminOnly marks rights as admin-only: a wildcard scope ("*",
// "config.*", "config.credentials.*") never covers them; only a scope
// naming the right exactly does, and grants give that exact scope only to
// holders of the admin role. Spec: "Decrypt and delete are meant for
// admins only".
func DeclareAdminOnly(rights ...string) {
	for _, r := range rights {
		if r != "" {
			adminOnly.Store(r, struct{}{})
		}
	}
}

// IsAdminOnly reports whether right was declared admin-only.
func IsAdminOnly(right string) bool {
	_, ok := adminOnly.Load(right)
	return ok
}

// AdminOnlyRights lists the declared admin-only rights, sorted.
func AdminOnlyRights() []string {
	var out []string
	adminOnly.Range(func(k, _ any) bool {
		out = append(out, k.(string))
		return true
	})
	sort.Strings(out)
	return out
}

// PatternMatches reports whether a right pattern ("crm.*", "*", or a right)
// matches right by its shape alone, admin-only or not. Licences (a
// customer's package) are matched so: they limit what may be granted and
// grant nothing themselves.
func PatternMatches(pattern, right string) bool {
	if pattern == right || pattern == "*" {
		return true
	}
	if prefix, ok := strings.CutSuffix(pattern, ".*"); ok {
		return strings.HasPrefix(right, prefix+".")
	}
	return false
}
