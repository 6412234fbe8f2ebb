// Package template finds and renders the {{path}} templates of pipeline
// settings: a dotted path into a scope of maps and arrays, such as
// {{event.data.email}} or {{steps.shape.output.total}}. It is pure (no
// I/O, no clock), so the pipeline interpreter renders templates in its
// workflow, the step activities in theirs, and validation checks them
// when a pipeline is saved.
package template

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

var (
	templateRe = regexp.MustCompile(`\{\{\s*([^{}]*?)\s*\}\}`)
	pathRe     = regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$-]*(\.[A-Za-z0-9_$-]+)*$`)
)

// Ref is one {{path}} found in a setting.
type Ref struct {
	Path  string
	Parts []string
}

// Root is the first segment of the path.
func (r Ref) Root() string { return r.Parts[0] }

// Refs lists the template references in v (strings, maps and arrays,
// walked recursively); a malformed path is an error.
func Refs(v any) ([]Ref, error) {
	var out []Ref
	err := walkStrings(v, func(s string) error {
		for _, m := range templateRe.FindAllStringSubmatch(s, -1) {
			p := m[1]
			if !pathRe.MatchString(p) {
				return fmt.Errorf("template {{%s}} is not a dotted path such as event.data.email", p)
			}
			out = append(out, Ref{Path: p, Parts: strings.Split(p, ".")})
		}
		return nil
	})
	return out, err
}

func walkStrings(v any, f func(string) error) error {
	switch t := v.(type) {
	case string:
		return f(t)
	case map[string]any:
		for _, k := range sortedKeys(t) {
			if err := walkStrings(t[k], f); err != nil {
				return err
			}
		}
	case map[string]string:
		for _, k := range sortedKeys(t) {
			if err := f(t[k]); err != nil {
				return err
			}
		}
	case []any:
		for _, e := range t {
			if err := walkStrings(e, f); err != nil {
				return err
			}
		}
	}
	return nil
}

// Render replaces templates in v against scope. A string that is exactly
// one template takes the referenced value as it is (an object stays an
// object); templates inside longer strings are interpolated, objects as
// JSON. A path that leads nowhere renders as null (or "" inside a string).
func Render(v any, scope map[string]any) any {
	switch t := v.(type) {
	case string:
		return renderString(t, scope)
	case map[string]any:
		if t == nil {
			return nil // an unset setting stays unset
		}
		out := make(map[string]any, len(t))
		// Ranging over a map to fill another: the order cannot show.
		//workflowcheck:ignore
		for k, e := range t {
			out[k] = Render(e, scope)
		}
		return out
	case map[string]string:
		if t == nil {
			return nil
		}
		out := make(map[string]string, len(t))
		//workflowcheck:ignore (as above)
		for k, e := range t {
			out[k] = Text(Render(e, scope))
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = Render(e, scope)
		}
		return out
	}
	return v
}

// RenderText renders a string setting to text.
func RenderText(s string, scope map[string]any) string { return Text(renderString(s, scope)) }

func renderString(s string, scope map[string]any) any {
	if !strings.Contains(s, "{{") {
		return s
	}
	if m := templateRe.FindStringSubmatchIndex(s); m != nil && m[0] == 0 && m[1] == len(s) {
		return Lookup(scope, s[m[2]:m[3]])
	}
	return templateRe.ReplaceAllStringFunc(s, func(t string) string {
		p := templateRe.FindStringSubmatch(t)[1]
		return Text(Lookup(scope, p))
	})
}

// Lookup follows a dotted path through maps and arrays (numeric segments
// index arrays).
func Lookup(scope map[string]any, path string) any {
	var cur any = scope
	for _, part := range strings.Split(path, ".") {
		switch t := cur.(type) {
		case map[string]any:
			cur = t[part]
		case []any:
			i, err := strconv.Atoi(part)
			if err != nil || i < 0 || i >= len(t) {
				return nil
			}
			cur = t[i]
		default:
			return nil
		}
	}
	return cur
}

// Text is a value as it appears inside a string: strings as they are,
// null as nothing, everything else as JSON.
func Text(v any) string {
	switch t := v.(type) {
	case nil:
		return ""
	case string:
		return t
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	// encoding/json writes the same text for the same value (map keys
	// sorted); the checker sees its type caches and reflection.
	//workflowcheck:ignore
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// sortedKeys orders a map's keys, so a walk visits them alike every time
// (it ranges over the map only to sort what it finds).
//
//workflowcheck:ignore
func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}
