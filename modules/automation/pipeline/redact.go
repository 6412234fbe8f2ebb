package pipeline

import (
	"sort"
	"strings"
)

// Redacted replaces secret values in everything recorded.
const Redacted = "[redacted]"

// MinRedactedLength is the shortest secret value replaced wherever it
// occurs as a substring (outputs, logs, errors). Replacing shorter ones
// mangles every text (a password "p" turned "http" into "htt[redacted]")
// and, by the gaps, tells a reader the secret. Values rendered from
// {{secrets...}} into a step's input are hidden whatever their length:
// the input is recorded from a rendering that reads every secret as
// [redacted] (MaskSecrets).
const MinRedactedLength = 8

// Redactor hides secret values in what is recorded: step outputs, errors
// and logs.
type Redactor struct{ secrets []string }

// NewRedactor redacts each of secrets at least MinRedactedLength bytes
// long (longest first, so a secret that contains another is hidden whole).
func NewRedactor(secrets []string) *Redactor {
	s := make([]string, 0, len(secrets))
	for _, v := range secrets {
		if len(v) >= MinRedactedLength {
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

// MaskSecrets is secrets with every value replaced by Redacted, keys
// kept: rendering a template over it yields what the step's record may
// show, with each value that came from {{secrets...}} hidden where it
// landed, however short.
func MaskSecrets(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			out[k] = MaskSecrets(e)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = MaskSecrets(e)
		}
		return out
	}
	return Redacted
}
