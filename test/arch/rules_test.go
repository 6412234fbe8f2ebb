package arch

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strings"
)

// pattern is a package path pattern of the rules file (see imports.rules).
type pattern struct {
	text  string
	elems []string
}

func newPattern(text string) pattern {
	return pattern{text: text, elems: strings.Split(text, "/")}
}

// external reports whether the pattern names packages outside the module:
// the standard library or a path starting with a domain.
func (p pattern) external() bool {
	return p.text == "std" || p.elems[0] != "..." && strings.Contains(p.elems[0], ".")
}

// binds reports whether the pattern uses the module variable {m}.
func (p pattern) binds() bool { return strings.Contains(p.text, "{m}") }

// specificity is the length of the pattern's fixed prefix: a package
// follows the rules of the most specific FROM that matches it.
func (p pattern) specificity() int {
	n := 0
	for _, e := range p.elems {
		if e == "*" || e == "{m}" || e == "..." {
			break
		}
		n += len(e) + 1
	}
	return n
}

// match matches a path (below the module for internal patterns, in full
// for external ones). m is the value {m} is bound to ("" when unbound); the
// answer is the value after the match.
func (p pattern) match(path, m string) (string, bool) {
	if p.text == "std" {
		return m, isStd(path)
	}
	elems := strings.Split(path, "/")
	for i, e := range p.elems {
		switch {
		case e == "..." && i == len(p.elems)-1:
			return m, true
		case i >= len(elems):
			return "", false
		case e == "*":
		case e == "{m}":
			if m != "" && m != elems[i] {
				return "", false
			}
			m = elems[i]
		case e != elems[i]:
			return "", false
		}
	}
	return m, len(p.elems) == len(elems)
}

// isStd reports whether an import path outside the module is the standard
// library's (its first element has no dot).
func isStd(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	return !strings.Contains(first, ".")
}

// rule is one statement of the rules file.
type rule struct {
	kind   string // "allow", "forbid" or "known"
	from   pattern
	to     []pattern
	line   int
	reason string
}

func (r rule) String() string {
	to := make([]string, len(r.to))
	for i, p := range r.to {
		to[i] = p.text
	}
	return fmt.Sprintf("%s:%d %q (%s)", rulesFile, r.line, r.kind+" "+r.from.text+" -> "+strings.Join(to, ", "), firstSentence(r.reason))
}

// firstSentence keeps failure messages short: the file has the rest.
func firstSentence(s string) string {
	if i := strings.Index(s, ". "); i >= 0 {
		return s[:i+1]
	}
	return s
}

// limitsOutside reports whether the rule names packages outside the module,
// which limits its part to them.
func (r rule) limitsOutside() bool {
	for _, p := range r.to {
		if p.external() {
			return true
		}
	}
	return false
}

// allows reports whether the rule lets a package (bound to m) import path.
func (r rule) allows(path, m string, internal bool) bool {
	for _, p := range r.to {
		if p.external() == internal {
			continue
		}
		if _, ok := p.match(path, m); ok {
			return true
		}
	}
	return false
}

// ruleSet is the parsed rules file.
type ruleSet struct {
	allow, forbid, known []rule
}

const rulesFile = "imports.rules"

// parseRules reads the rules file's statements with their reasons.
func parseRules(r io.Reader) (*ruleSet, error) {
	rs := &ruleSet{}
	var block []string // the comment block above the current statement
	afterStatement := false
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "":
			block, afterStatement = nil, false
		case strings.HasPrefix(line, "#"):
			if afterStatement {
				block, afterStatement = nil, false
			}
			block = append(block, strings.TrimSpace(strings.TrimPrefix(line, "#")))
		default:
			if err := rs.add(line, n, strings.Join(block, " ")); err != nil {
				return nil, fmt.Errorf("%s:%d: %w", rulesFile, n, err)
			}
			afterStatement = true
		}
	}
	return rs, sc.Err()
}

// add parses one statement: KIND FROM -> TO, TO, ... [# reason].
func (rs *ruleSet) add(line string, n int, reason string) error {
	text, comment, _ := strings.Cut(line, "#")
	if c := strings.TrimSpace(comment); c != "" {
		reason = c
	}
	if reason == "" {
		return fmt.Errorf("%q has no reason: write one in a comment above it", line)
	}
	kind, rest, _ := strings.Cut(strings.TrimSpace(text), " ")
	from, to, ok := strings.Cut(rest, "->")
	if !ok {
		return fmt.Errorf("%q: want KIND FROM -> TO", line)
	}
	r := rule{kind: kind, from: newPattern(strings.TrimSpace(from)), line: n, reason: reason}
	for _, t := range strings.Split(to, ",") {
		r.to = append(r.to, newPattern(strings.TrimSpace(t)))
	}
	return rs.file(r)
}

// file checks a rule's form and files it under its kind.
func (rs *ruleSet) file(r rule) error {
	for _, p := range r.to {
		if p.binds() && !r.from.binds() {
			return fmt.Errorf("%s uses {m}, which its FROM does not bind", p.text)
		}
	}
	switch r.kind {
	case "allow":
		rs.allow = append(rs.allow, r)
	case "forbid":
		if slices.ContainsFunc(r.to, func(p pattern) bool { return !p.external() }) {
			return fmt.Errorf("forbid names packages outside the module; inside it, allow rules decide")
		}
		rs.forbid = append(rs.forbid, r)
	case "known":
		if len(r.to) != 1 {
			return fmt.Errorf("a known violation names one import")
		}
		rs.known = append(rs.known, r)
	default:
		return fmt.Errorf("unknown statement %q: want allow, forbid or known", r.kind)
	}
	return nil
}

// allowFor returns the allow rules a package follows: those of the most
// specific FROM that matches it, with the value {m} is bound to.
func (rs *ruleSet) allowFor(pkg string) ([]rule, string) {
	var out []rule
	best, bound := -1, ""
	for _, r := range rs.allow {
		m, ok := r.from.match(pkg, "")
		if !ok {
			continue
		}
		switch s := r.from.specificity(); {
		case s > best:
			out, best, bound = []rule{r}, s, m
		case s == best:
			out = append(out, r)
		}
	}
	return out, bound
}
