package arch

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// pkg is a package as go list describes it.
type pkg struct {
	ImportPath string
	Imports    []string
	Module     *struct{ Path string }
}

// graph holds the module's packages and every package they depend on.
type graph struct {
	module string
	pkgs   map[string]*pkg
	own    []string // the module's packages, in go list's order
}

// loadGraph lists the packages of the module the test runs in, with all
// their dependencies (test files left out: the rules are about shipped code).
func loadGraph() (*graph, error) {
	gomod, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return nil, fmt.Errorf("go env GOMOD: %w", err)
	}
	cmd := exec.Command("go", "list", "-deps", "-json=ImportPath,Imports,Module", "./...")
	cmd.Dir = filepath.Dir(strings.TrimSpace(string(gomod)))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list: %w: %s", err, stderr.Bytes())
	}
	module, err := exec.Command("go", "list", "-m").Output()
	if err != nil {
		return nil, fmt.Errorf("go list -m: %w", err)
	}
	return decodeGraph(strings.TrimSpace(string(module)), out)
}

// decodeGraph reads go list -json's stream of packages.
func decodeGraph(module string, list []byte) (*graph, error) {
	g := &graph{module: module, pkgs: map[string]*pkg{}}
	dec := json.NewDecoder(bytes.NewReader(list))
	for {
		p := &pkg{}
		if err := dec.Decode(p); errors.Is(err, io.EOF) {
			return g, nil
		} else if err != nil {
			return nil, fmt.Errorf("decode go list: %w", err)
		}
		g.add(p)
	}
}

func (g *graph) add(p *pkg) {
	g.pkgs[p.ImportPath] = p
	if g.internal(p.ImportPath) {
		g.own = append(g.own, p.ImportPath)
	}
}

// internal reports whether an import path is a package of the module.
func (g *graph) internal(path string) bool {
	return path == g.module || strings.HasPrefix(path, g.module+"/")
}

// rel is an internal path below the module, as the rules write it.
func (g *graph) rel(path string) string {
	return strings.TrimPrefix(strings.TrimPrefix(path, g.module), "/")
}

// chainTo finds the shortest import chain from a package to one matching p
// (nil when there is none).
func (g *graph) chainTo(from string, p pattern) []string {
	prev := map[string]string{from: ""}
	queue := []string{from}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		if _, ok := p.match(cur, ""); ok && cur != from {
			return unwind(prev, cur)
		}
		if q := g.pkgs[cur]; q != nil {
			for _, imp := range q.Imports {
				if _, seen := prev[imp]; !seen {
					prev[imp] = cur
					queue = append(queue, imp)
				}
			}
		}
	}
	return nil
}

func unwind(prev map[string]string, last string) []string {
	var chain []string
	for p := last; p != ""; p = prev[p] {
		chain = append(chain, p)
	}
	slices.Reverse(chain)
	return chain
}

// violation is an import that breaks the rules. from and to are how a
// known entry names it: paths below the module, or a forbid pattern.
type violation struct {
	from, to string
	msg      string
}

func (v violation) key() string { return v.from + " -> " + v.to }

// check lists every violation of the rules among the module's packages.
func check(rs *ruleSet, g *graph) []violation {
	var out []violation
	for _, path := range g.own {
		out = append(out, checkAllowed(rs, g, path)...)
		out = append(out, checkForbidden(rs, g, path)...)
	}
	return out
}

// checkAllowed checks a package's direct imports against the allow rules
// it follows.
func checkAllowed(rs *ruleSet, g *graph, path string) []violation {
	rel := g.rel(path)
	rules, m := rs.allowFor(rel)
	if len(rules) == 0 {
		return []violation{{from: rel, msg: fmt.Sprintf("%s belongs to no part: no allow rule of %s matches it", path, rulesFile)}}
	}
	limited := slices.ContainsFunc(rules, rule.limitsOutside)
	var out []violation
	for _, imp := range g.pkgs[path].Imports {
		internal := g.internal(imp)
		if !internal && !limited {
			continue
		}
		target := imp
		if internal {
			target = g.rel(imp)
		}
		if !slices.ContainsFunc(rules, func(r rule) bool { return r.allows(target, m, internal) }) {
			out = append(out, violation{from: rel, to: target,
				msg: fmt.Sprintf("%s imports %s, which no rule allows; %s follows %s", path, imp, rel, listRules(rules))})
		}
	}
	return out
}

// checkForbidden checks a package's dependencies, direct or not, against
// the forbid rules that match it.
func checkForbidden(rs *ruleSet, g *graph, path string) []violation {
	rel := g.rel(path)
	var out []violation
	for _, r := range rs.forbid {
		if _, ok := r.from.match(rel, ""); !ok {
			continue
		}
		for _, p := range r.to {
			if chain := g.chainTo(path, p); chain != nil {
				out = append(out, violation{from: rel, to: p.text,
					msg: fmt.Sprintf("%s depends on %s (%s), which %s forbids", path, chain[len(chain)-1], strings.Join(chain, " -> "), r)})
			}
		}
	}
	return out
}

func listRules(rules []rule) string {
	s := make([]string, len(rules))
	for i, r := range rules {
		s[i] = r.String()
	}
	return strings.Join(s, "; ")
}
