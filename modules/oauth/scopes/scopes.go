// Package scopes turns the declared resources into the rights an OAuth grant
// can carry, computes grants (requested ∩ holder's rights ∩ package, with
// wildcards expanded against the real rights so the grant is frozen), and
// describes them in plain words for the consent screen.
package scopes

import (
	"platform/kernel/resource"
	"regexp"
	"sort"
	"strings"

	"platform/kernel/auth"
)

// Standard scopes served by /oauth/userinfo.
const (
	Profile = "profile"
	Email   = "email"
)

// IsStandard reports whether s is a standard (non-right) scope.
func IsStandard(s string) bool { return s == Profile || s == Email }

// Entry is one right with what it means.
type Entry struct {
	Right    string
	Module   string
	Resource string // plural, e.g. "consumers"
	Verb     string
	Text     string // plain words, e.g. "see"
}

// Catalog is every right of the declared resources.
type Catalog struct {
	entries []Entry
	byRight map[string]Entry
}

var verbWords = map[string]string{"view": "see", "create": "create", "edit": "change", "delete": "delete"}

// NewCatalog lists the rights of every resource: view, create, edit and
// delete (view only for read-only ones), export where declared, the
// actions' own rights and the resource's further grants.
func NewCatalog(reg *resource.Registry) *Catalog {
	c := &Catalog{byRight: map[string]Entry{}}
	for _, r := range reg.All() {
		verbs := []string{"view"}
		if !r.ReadOnly {
			verbs = append(verbs, "create", "edit", "delete")
		}
		for _, v := range verbs {
			c.add(Entry{Right: r.Right(v), Module: r.Module, Resource: r.Plural, Verb: v, Text: verbWords[v]})
		}
		if r.Export {
			c.add(Entry{Right: r.Right("export"), Module: r.Module, Resource: r.Plural, Verb: "export", Text: "export as CSV or YAML"})
		}
		for i := range r.Actions {
			a := &r.Actions[i]
			right := r.ActionRight(a)
			c.add(Entry{Right: right, Module: r.Module, Resource: r.Plural, Verb: lastSegment(right), Text: a.Title})
		}
		for _, g := range r.Grants {
			c.add(Entry{Right: g.Right, Module: r.Module, Resource: r.Plural, Verb: lastSegment(g.Right), Text: g.Title})
		}
	}
	return c // entries stay in declaration order: module, resource, then view, create, edit, delete, actions
}

func (c *Catalog) add(e Entry) {
	if _, dup := c.byRight[e.Right]; dup {
		return
	}
	c.byRight[e.Right] = e
	c.entries = append(c.entries, e)
}

// Rights lists every right, sorted.
func (c *Catalog) Rights() []string {
	out := make([]string, len(c.entries))
	for i, e := range c.entries {
		out[i] = e.Right
	}
	sort.Strings(out)
	return out
}

var scopeRE = regexp.MustCompile(`^(\*|[a-z0-9-]+\.\*|[a-z0-9-]+\.[a-z0-9-]+\.(\*|[a-z0-9-]+))$`)

// Valid reports whether s is a standard scope or a right pattern that
// covers at least one real right.
func (c *Catalog) Valid(s string) bool {
	if IsStandard(s) {
		return true
	}
	if !scopeRE.MatchString(s) {
		return false
	}
	for _, e := range c.entries {
		if auth.ScopeCovers(s, e.Right) {
			return true
		}
	}
	return false
}

// Grant is the frozen grant: every real right covered by one of requested,
// one of holder (the user's rights; for an app acting alone, its own
// scopes) and one of pkg (the customer's package), plus the requested
// standard scopes when withStandard. Wildcards never reach the token. An
// admin-only right needs its exact name in requested and in holder (which
// only the admin role puts there: identity.EffectiveRights); pkg may
// license it by a wildcard.
func (c *Catalog) Grant(requested, holder, pkg []string, withStandard bool) []string {
	var out []string
	for _, e := range c.entries {
		if coveredBy(requested, e.Right) && coveredBy(holder, e.Right) && licensed(pkg, e.Right) {
			out = append(out, e.Right)
		}
	}
	sort.Strings(out)
	if withStandard {
		for _, s := range []string{Profile, Email} {
			if contains(requested, s) {
				out = append(out, s)
			}
		}
	}
	return out
}

// Within reports whether every scope of want is covered by have (a refresh
// may narrow its grant, never widen it).
func Within(want, have []string) bool {
	for _, w := range want {
		if IsStandard(w) {
			if !contains(have, w) {
				return false
			}
			continue
		}
		if !coveredBy(have, w) {
			return false
		}
	}
	return true
}

func coveredBy(patterns []string, right string) bool {
	for _, p := range patterns {
		if !IsStandard(p) && auth.ScopeCovers(p, right) {
			return true
		}
	}
	return false
}

// licensed reports whether the package licenses right: a package limits
// what may be granted and grants nothing itself, so its wildcards match
// admin-only rights too (those still need an exact grant and request).
func licensed(pkg []string, right string) bool {
	for _, p := range pkg {
		if !IsStandard(p) && auth.PatternMatches(p, right) {
			return true
		}
	}
	return false
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

func lastSegment(s string) string {
	if i := strings.LastIndexByte(s, '.'); i >= 0 {
		return s[i+1:]
	}
	return s
}
