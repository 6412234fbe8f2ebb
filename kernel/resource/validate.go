package resource

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/mail"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"platform/kernel/e164"
	"platform/kernel/store"
)

// mode says how strictly a body is checked against the declaration.
type mode int

const (
	modeCreate  mode = iota // required fields must be present
	modeReplace             // PUT: the whole record; required fields must be present
	modePatch               // PATCH (JSON merge patch): only the given fields; null removes
)

// validator collects every failure of one body, so the client sees all of
// them at once.
type validator struct {
	errs []ErrorEntry
}

func (v *validator) fail(code, field, format string, args ...any) {
	v.errs = append(v.errs, FieldError(code, field, format, args...))
}

// validateBody checks body against fields and returns the values converted
// to their stored types (dates as time.Time, integers as int64).
func validateBody(fields []Field, body map[string]any, m mode) (store.Doc, []ErrorEntry) {
	v := &validator{}
	out := v.object(fields, body, "", m)
	return out, v.errs
}

func (v *validator) object(fields []Field, body map[string]any, prefix string, m mode) store.Doc {
	out := store.Doc{}
	known := map[string]*Field{}
	for i := range fields {
		known[fields[i].Name] = &fields[i]
	}
	for name, raw := range body {
		path := prefix + name
		f := known[name]
		switch {
		case f == nil:
			v.fail(CodeUnknownField, path, "unknown field %q", path)
		case f.ReadOnly || f.Virtual:
			v.fail(CodeReadOnly, path, "field %q is set by the platform and cannot be written", path)
		case raw == nil && m == modePatch:
			if f.Required {
				v.fail(CodeRequired, path, "field %q is required and cannot be removed", path)
			}
			out[name] = nil
		case raw == nil:
			if f.Required {
				v.fail(CodeRequired, path, "field %q is required", path)
			}
		default:
			if val, ok := v.value(f, raw, path, m); ok {
				out[name] = val
			}
		}
	}
	if m != modePatch {
		for i := range fields {
			f := &fields[i]
			if _, present := body[f.Name]; present || f.Virtual {
				continue
			}
			if f.ReadOnly {
				if m == modeCreate && f.Default != nil {
					out[f.Name] = f.Default // the platform's initial value
				}
				continue
			}
			if f.Required {
				v.fail(CodeRequired, prefix+f.Name, "field %q is required", prefix+f.Name)
			} else if f.Default != nil {
				out[f.Name] = f.Default
			}
		}
	}
	return out
}

func (v *validator) value(f *Field, raw any, path string, m mode) (any, bool) {
	switch f.Type {
	case TString:
		return v.str(f, raw, path)
	case TNumber, TInteger:
		return v.number(f, raw, path)
	case TBool:
		b, ok := raw.(bool)
		if !ok {
			v.fail(CodeType, path, "field %q must be true or false", path)
		}
		return b, ok
	case TDate:
		return v.date(raw, path)
	case TObjectID:
		s, ok := raw.(string)
		if !ok || !store.ValidID(s) {
			v.fail(CodeFormat, path, "field %q must be a 24-character hexadecimal id", path)
			return nil, false
		}
		return strings.ToLower(s), true
	case TObject:
		if f.Union != nil {
			return v.union(f, raw, path, m)
		}
		return v.obj(f, raw, path, m)
	case TArray:
		return v.array(f, raw, path, m)
	}
	return raw, true
}

func (v *validator) str(f *Field, raw any, path string) (any, bool) {
	s, ok := raw.(string)
	if !ok {
		v.fail(CodeType, path, "field %q must be a string", path)
		return nil, false
	}
	if f.Required && strings.TrimSpace(s) == "" {
		v.fail(CodeRequired, path, "field %q is required and cannot be empty", path)
		return nil, false
	}
	max := f.maxLen()
	if utf8.RuneCountInString(s) > max {
		v.fail(CodeInvalid, path, "field %q is longer than %d characters", path, max)
		return nil, false
	}
	if len(f.Enum) > 0 && !contains(f.Enum, s) {
		v.fail(CodeEnum, path, "field %q must be one of %s", path, strings.Join(f.Enum, ", "))
		return nil, false
	}
	if msg := checkFormat(f.Format, s); msg != "" {
		v.fail(CodeFormat, path, "field %q %s", path, msg)
		return nil, false
	}
	return s, true
}

func (v *validator) number(f *Field, raw any, path string) (any, bool) {
	n, ok := raw.(json.Number)
	if !ok {
		v.fail(CodeType, path, "field %q must be a number", path)
		return nil, false
	}
	if i, err := n.Int64(); err == nil {
		return i, v.inRange(f, float64(i), path)
	}
	if f.Type == TInteger {
		v.fail(CodeType, path, "field %q must be a whole number", path)
		return nil, false
	}
	// Finite: bodies are decoded by jsonlimit.Decode, which refuses the rest.
	x, _ := n.Float64()
	return x, v.inRange(f, x, path)
}

// inRange checks a number against the field's Range.
func (v *validator) inRange(f *Field, x float64, path string) bool {
	if f.Range == nil || (x >= f.Range.Min && x <= f.Range.Max) {
		return true
	}
	v.fail(CodeRange, path, "field %q must be between %v and %v", path, f.Range.Min, f.Range.Max)
	return false
}

// itemCount checks an array's length against MinItems and MaxItems.
func (v *validator) itemCount(f *Field, n int, path string) bool {
	switch {
	case f.MinItems > 0 && n < f.MinItems:
		v.fail(CodeRange, path, "field %q needs at least %d items", path, f.MinItems)
	case f.MaxItems > 0 && n > f.MaxItems:
		v.fail(CodeRange, path, "field %q holds at most %d items", path, f.MaxItems)
	default:
		return true
	}
	return false
}

func (v *validator) date(raw any, path string) (any, bool) {
	s, ok := raw.(string)
	if !ok {
		v.fail(CodeType, path, "field %q must be an ISO 8601 date string", path)
		return nil, false
	}
	t, err := ParseDate(s)
	if err != nil {
		v.fail(CodeFormat, path, "field %q must be an ISO 8601 date such as 2026-01-31T12:00:00Z", path)
		return nil, false
	}
	return t, true
}

// ParseDate accepts RFC 3339 timestamps and plain dates, returning UTC at
// millisecond precision (what every store keeps).
func ParseDate(s string) (time.Time, error) {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC().Truncate(time.Millisecond), nil
		}
	}
	return time.Time{}, errors.New("not an ISO 8601 date")
}

func (v *validator) obj(f *Field, raw any, path string, m mode) (any, bool) {
	o, ok := raw.(map[string]any)
	if !ok {
		v.fail(CodeType, path, "field %q must be an object", path)
		return nil, false
	}
	if f.FreeForm {
		return freeForm(o), true
	}
	sub := m
	if sub == modePatch {
		sub = modeReplace // a nested object replaces the old one whole
	}
	return v.object(f.Fields, o, path+".", sub), true
}

func (v *validator) array(f *Field, raw any, path string, m mode) (any, bool) {
	a, ok := raw.([]any)
	if !ok {
		v.fail(CodeType, path, "field %q must be an array", path)
		return nil, false
	}
	if !v.itemCount(f, len(a), path) {
		return nil, false
	}
	out := make([]any, 0, len(a))
	for i, e := range a {
		p := fmt.Sprintf("%s[%d]", path, i)
		if f.Items == nil {
			out = append(out, freeValue(e))
			continue
		}
		if e == nil {
			v.fail(CodeType, p, "field %q must not be null", p)
			continue
		}
		if val, ok := v.value(f.Items, e, p, m); ok {
			out = append(out, val)
		}
	}
	return out, true
}

// freeForm converts JSON numbers in tenant-defined objects.
func freeForm(o map[string]any) store.Doc {
	out := store.Doc{}
	for k, v := range o {
		out[k] = freeValue(v)
	}
	return out
}

func freeValue(v any) any {
	switch x := v.(type) {
	case json.Number:
		return store.JSONNumber(x)
	case map[string]any:
		return freeForm(x)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = freeValue(e)
		}
		return out
	}
	return v
}

func checkFormat(f Format, s string) string {
	switch f {
	case FEmail:
		a, err := mail.ParseAddress(s)
		if err != nil || a.Address != s || !strings.Contains(s[strings.LastIndexByte(s, '@')+1:], ".") {
			return "must be an e-mail address such as name@example.com"
		}
	case FURL:
		u, err := url.Parse(s)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return "must be an absolute http(s) URL"
		}
	case FPhone:
		if !e164.Valid(s) {
			return "must be a phone number in E.164 format such as +4930123456"
		}
	case FCountry:
		if !iso3166[s] {
			return "must be an ISO 3166-1 alpha-2 country code such as DE"
		}
	case FLocale:
		if len(s) < 2 || len(s) > 12 {
			return "must be a locale such as en or de-CH"
		}
	}
	return ""
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// ValidateValue checks one value against a field as a create would (a
// block proposed by a language model before it is stored) and returns it
// converted to its stored type, or every failure, named from path.
func ValidateValue(f *Field, raw any, path string) (any, []ErrorEntry) {
	v := &validator{}
	out, _ := v.value(f, raw, path, modeCreate)
	return out, v.errs
}
