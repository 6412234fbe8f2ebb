// Package arch checks the imports between the parts of the platform against
// the rules written in imports.rules.
package arch

import (
	"os"
	"strings"
	"testing"
)

func loadRules(t *testing.T) *ruleSet {
	t.Helper()
	f, err := os.Open(rulesFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rs, err := parseRules(f)
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

// TestImportRules: no package of the module imports what the rules do not
// allow, apart from the known violations, each of which must still happen
// (a fixed one is deleted from the file, so it cannot come back unnoticed).
func TestImportRules(t *testing.T) {
	rs := loadRules(t)
	g, err := loadGraph()
	if err != nil {
		t.Fatal(err)
	}
	known := map[string]rule{}
	for _, r := range rs.known {
		known[r.from.text+" -> "+r.to[0].text] = r
	}
	seen := map[string]bool{}
	for _, v := range check(rs, g) {
		if r, ok := known[v.key()]; ok {
			seen[v.key()] = true
			t.Logf("known violation, tolerated until fixed (%s:%d): %s", rulesFile, r.line, v.msg)
			continue
		}
		t.Error(v.msg)
	}
	for _, r := range rs.known {
		if !seen[r.from.text+" -> "+r.to[0].text] {
			t.Errorf("%s no longer happens: delete it from %s", r, rulesFile)
		}
	}
}

// edge is an import of a made-up package graph.
type edge struct {
	from, to string
	allowed  bool
}

// TestRulesFileSaysWhatTheArchitectureIs: the rules file allows and
// refuses the imports the architecture names (issue 12), whatever the code
// does today.
func TestRulesFileSaysWhatTheArchitectureIs(t *testing.T) {
	rs := loadRules(t)
	for _, e := range []edge{
		{"kernel/events", "kernel/store", true},
		{"kernel/events", "api", false},
		{"kernel/ratelimit", "modules/crm", false},
		{"kernel/auth", "workflows", false},
		{"kernel/store", "workflows/contract", true},
		{"api", "kernel/query", true},
		{"api", "modules/crm", false},
		{"api", "activities", false},
		{"modules/crm", "api", true},
		{"modules/crm", "sandbox", true},
		{"modules/automation", "modules/automation/runs", true},
		{"modules/automation/dispatch", "modules/automation", true},
		{"modules/developer", "modules/oauth/scopes", true},
		{"modules/developer", "modules/oauth", false},
		{"modules/developer", "modules/identity", true},
		{"modules/identity", "api", false},
		{"modules/identity", "modules/audit/trail", false},
		{"modules/automation", "workflows", false},
		{"modules/automation", "workflows/contract", true},
		{"modules/automation", "activities", false},
		{"modules/crm", "worker", false},
		{"modules/crm", "cmd/platform/app", false},
		{"workflows", "workflows/contract", true},
		{"workflows", "kernel/query", true},
		{"workflows", "kernel/store", false},
		{"workflows", "activities", false},
		{"workflows", "api", false},
		{"workflows", "modules/automation/pipeline", false},
		{"workflows", "go.temporal.io/sdk/workflow", true},
		{"workflows", "github.com/gin-gonic/gin", false},
		{"workflows", "strings", true},
		{"workflows/contract", "kernel/query", false},
		{"workflows/contract", "go.temporal.io/sdk/temporal", true},
		{"activities", "kernel/store", true},
		{"activities", "modules/automation/webhook", true},
		{"activities", "modules/crm", false},
		{"activities", "api", false},
		{"activities", "sandbox", true},
		{"activities", "workflows/contract", true},
		{"activities", "workflows", false},
		{"worker", "workflows", true},
		{"worker", "activities", true},
		{"worker", "api", false},
		{"sandbox", "kernel/tenant", true},
		{"sandbox", "modules/crm", false},
		{"cmd/platform/app", "modules/crm", true},
		{"cmd/platform", "cmd/platform/app", true},
		{"test/testenv", "cmd/platform/app", true},
	} {
		g := madeUpGraph(edgeList{{e.from, e.to}})
		vs := checkAllowed(rs, g, "platform/"+e.from)
		if e.allowed && len(vs) > 0 {
			t.Errorf("%s -> %s should be allowed: %s", e.from, e.to, vs[0].msg)
		}
		if !e.allowed && len(vs) == 0 {
			t.Errorf("%s -> %s should be refused", e.from, e.to)
		}
	}
}

// TestViolationNamesBothPackagesAndTheRule: the failure says who imports
// what and which rule the importer follows.
func TestViolationNamesBothPackagesAndTheRule(t *testing.T) {
	rs := loadRules(t)
	vs := check(rs, madeUpGraph(edgeList{{"kernel/events", "api"}}))
	if len(vs) != 1 {
		t.Fatalf("want one violation, got %v", vs)
	}
	for _, want := range []string{"platform/kernel/events imports platform/api", rulesFile + ":", "allow kernel/... -> kernel/..., workflows/contract", "The kernel knows nothing of HTTP"} {
		if !strings.Contains(vs[0].msg, want) {
			t.Errorf("the message %q lacks %q", vs[0].msg, want)
		}
	}
	if vs[0].key() != "kernel/events -> api" {
		t.Errorf("key %q: a known entry could not name it", vs[0].key())
	}
}

// TestForbiddenDependencyThroughOtherPackages: a forbid rule follows the
// imports to the end and names the chain.
func TestForbiddenDependencyThroughOtherPackages(t *testing.T) {
	rs := loadRules(t)
	g := madeUpGraph(edgeList{{"workflows", "kernel/query"}, {"kernel/query", "github.com/gin-gonic/gin/render"}})
	var got []string
	for _, v := range check(rs, g) {
		got = append(got, v.key()+": "+v.msg)
	}
	want := "workflows -> github.com/gin-gonic/...: platform/workflows depends on github.com/gin-gonic/gin/render " +
		"(platform/workflows -> platform/kernel/query -> github.com/gin-gonic/gin/render)"
	if !containsPrefix(got, want) {
		t.Errorf("want a violation starting %q, got %q", want, got)
	}
}

// TestPackageOutsideEveryPart: a new top-level folder is an error until the
// rules place it.
func TestPackageOutsideEveryPart(t *testing.T) {
	rs := loadRules(t)
	vs := check(rs, madeUpGraph(edgeList{{"helpers", "kernel/store"}}))
	if len(vs) == 0 || !strings.Contains(vs[0].msg, "platform/helpers belongs to no part") {
		t.Errorf("got %v", vs)
	}
}

func TestEveryStatementNeedsAReason(t *testing.T) {
	for _, text := range []string{
		"allow kernel/... -> kernel/...\n",
		"# a reason\nallow api/... -> kernel/...\n\nallow kernel/... -> kernel/...\n",
	} {
		if _, err := parseRules(strings.NewReader(text)); err == nil || !strings.Contains(err.Error(), "has no reason") {
			t.Errorf("%q: got %v", text, err)
		}
	}
	rs, err := parseRules(strings.NewReader("# a reason\nallow api/... -> kernel/...\nallow kernel/... -> kernel/... # its own\n"))
	if err != nil {
		t.Fatal(err)
	}
	if rs.allow[0].reason != "a reason" || rs.allow[1].reason != "its own" {
		t.Errorf("reasons %q, %q", rs.allow[0].reason, rs.allow[1].reason)
	}
}

// edgeList is a made-up package graph: imports between paths below the
// module "platform", or outside it.
type edgeList [][2]string

func madeUpGraph(edges edgeList) *graph {
	g := &graph{module: "platform", pkgs: map[string]*pkg{}}
	full := func(p string) string {
		if strings.Contains(strings.Split(p, "/")[0], ".") || isStdName(p) {
			return p
		}
		return "platform/" + p
	}
	for _, e := range edges {
		from, to := full(e[0]), full(e[1])
		for _, p := range []string{from, to} {
			if g.pkgs[p] == nil {
				g.add(&pkg{ImportPath: p})
			}
		}
		g.pkgs[from].Imports = append(g.pkgs[from].Imports, to)
	}
	return g
}

// isStdName tells the made-up graphs' standard packages from the module's.
func isStdName(p string) bool { return p == "strings" || p == "net/http" }

func containsPrefix(list []string, prefix string) bool {
	for _, s := range list {
		if strings.HasPrefix(s, prefix) {
			return true
		}
	}
	return false
}
