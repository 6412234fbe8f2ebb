package pipeline

import (
	"sort"
	"strings"
)

// Redacted replaces secret values in everything recorded.
const Redacted = "[redacted]"

// Redactor hides secret values in what is recorded: step inputs and
// outputs, errors and logs.
type Redactor struct{ secrets []string }

// NewRedactor redacts each of secrets (longest first, so a secret that
// contains another is hidden whole).
func NewRedactor(secrets []string) *Redactor {
	s := make([]string, 0, len(secrets))
	for _, v := range secrets {
		if v != "" {
			s = append(s, v)
		}
	}
	sort.Slice(s, func(i, j int) bool { return len(s[i]) > len(s[j]) })
	return &Redactor{secrets: s}
}

// String redacts one string.
func (r *Redactor) String(s string) string {
	if r == nil {
		return s
	}
	for _, sec := range r.secrets {
		if strings.Contains(s, sec) {
			s = strings.ReplaceAll(s, sec, Redacted)
		}
	}
	return s
}

// Value redacts every string in v (map keys included), returning a copy.
func (r *Redactor) Value(v any) any {
	if r == nil || len(r.secrets) == 0 {
		return v
	}
	switch t := v.(type) {
	case string:
		return r.String(t)
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			out[r.String(k)] = r.Value(e)
		}
		return out
	case map[string]string:
		out := make(map[string]any, len(t))
		for k, e := range t {
			out[r.String(k)] = r.String(e)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = r.Value(e)
		}
		return out
	case []string:
		out := make([]string, len(t))
		for i, e := range t {
			out[i] = r.String(e)
		}
		return out
	}
	return v
}
