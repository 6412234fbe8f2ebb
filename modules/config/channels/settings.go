package channels

import (
	"fmt"
	"math"
	"net/mail"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"platform/kernel/e164"
)

// Setting declares one setting of a kind.
type Setting struct {
	Name string
	// Secret settings are sent in the channel's secrets object, sealed by
	// the vault and never returned; the others in settings.
	Secret   bool
	Required bool
	Type     string // TypeString, TypeInteger or TypeStrings
	Default  any
	// Check says why a value of the right type is refused ("" accepts it).
	Check       func(v any) string
	Description string
}

// Setting types.
const (
	TypeString  = "string"
	TypeInteger = "integer"
	TypeStrings = "strings" // a list of strings
)

// Bounds of settings.
const (
	MaxRecipients  = 50   // items of a list setting (to, recipients)
	MaxSettingLen  = 2048 // bytes of one string setting
	maxStringItems = MaxRecipients
)

// Problem is a refused setting: Field is "settings.<name>" or
// "secrets.<name>".
type Problem struct {
	Field, Code, Message string
}

// Problem codes (the resource package's).
const (
	CodeRequired = "required"
	CodeInvalid  = "invalid"
	CodeType     = "type"
)

// Check validates the settings and secrets of kind and fills in defaults
// of settings. With checkSecrets false the secrets are not looked at (an
// update that keeps the sealed ones).
func Check(k Kind, settings, secrets map[string]any, checkSecrets bool) []Problem {
	var out []Problem
	out = append(out, unknown(k, "settings", settings, false)...)
	if checkSecrets {
		out = append(out, unknown(k, "secrets", secrets, true)...)
	}
	for _, s := range k.Settings() {
		if s.Secret && !checkSecrets {
			continue
		}
		obj, group := settings, "settings"
		if s.Secret {
			obj, group = secrets, "secrets"
		}
		if p := checkOne(s, obj, group); p != nil {
			out = append(out, *p)
		}
	}
	return out
}

func unknown(k Kind, group string, obj map[string]any, secret bool) []Problem {
	var out []Problem
	for _, name := range sortedKeys(obj) {
		s := find(k, name)
		switch {
		case s == nil:
			out = append(out, Problem{group + "." + name, CodeInvalid, fmt.Sprintf("%s is not a setting of %s channels (they take %s)", name, k.Name(), names(k))})
		case s.Secret != secret && secret:
			out = append(out, Problem{group + "." + name, CodeInvalid, fmt.Sprintf("%s is not secret: send it in settings", name)})
		case s.Secret != secret:
			out = append(out, Problem{group + "." + name, CodeInvalid, fmt.Sprintf("%s is secret: send it in secrets, which are sealed and never shown", name)})
		}
	}
	return out
}

func checkOne(s Setting, obj map[string]any, group string) *Problem {
	field := group + "." + s.Name
	v, ok := obj[s.Name]
	if !ok || v == nil || v == "" {
		if s.Default != nil && obj != nil {
			obj[s.Name] = s.Default
		}
		if s.Required && s.Default == nil {
			return &Problem{field, CodeRequired, fmt.Sprintf("%s is required: %s", field, s.Description)}
		}
		return nil
	}
	if why := checkType(s, v); why != "" {
		return &Problem{field, CodeType, field + " " + why}
	}
	if s.Check != nil {
		if why := s.Check(v); why != "" {
			return &Problem{field, CodeInvalid, field + " " + why}
		}
	}
	return nil
}

func checkType(s Setting, v any) string {
	switch s.Type {
	case TypeInteger:
		if n, ok := number(v); !ok || n != math.Trunc(n) {
			return "must be an integer"
		}
	case TypeStrings:
		list, ok := v.([]any)
		if !ok || len(list) == 0 || len(list) > maxStringItems {
			return fmt.Sprintf("must be a list of 1 to %d strings", maxStringItems)
		}
		for i, e := range list {
			if str, ok := e.(string); !ok || str == "" || len(str) > MaxSettingLen {
				return fmt.Sprintf("[%d] must be a non-empty string of at most %d bytes", i, MaxSettingLen)
			}
		}
	default:
		if str, ok := v.(string); !ok || len(str) > MaxSettingLen {
			return fmt.Sprintf("must be a string of at most %d bytes", MaxSettingLen)
		}
	}
	return ""
}

func number(v any) (float64, bool) {
	switch n := v.(type) {
	case int:
		return float64(n), true
	case int32:
		return float64(n), true
	case int64:
		return float64(n), true
	case float64:
		return n, !math.IsInf(n, 0) && !math.IsNaN(n)
	}
	return 0, false
}

func find(k Kind, name string) *Setting {
	for _, s := range k.Settings() {
		if s.Name == name {
			return &s
		}
	}
	return nil
}

func names(k Kind) string {
	var out []string
	for _, s := range k.Settings() {
		group := "settings"
		if s.Secret {
			group = "secrets"
		}
		out = append(out, group+"."+s.Name)
	}
	return strings.Join(out, ", ")
}

func sortedKeys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// Value checks shared by kinds.

func httpURL(v any) string {
	u, err := url.Parse(v.(string))
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return "must be an absolute http(s) URL"
	}
	if u.User != nil {
		return "must not hold a user name or password"
	}
	return ""
}

func each(check func(string) string) func(any) string {
	return func(v any) string {
		for i, e := range v.([]any) {
			if why := check(e.(string)); why != "" {
				return fmt.Sprintf("[%d] %s", i, why)
			}
		}
		return ""
	}
}

func mailAddress(s string) string {
	a, err := mail.ParseAddress(s)
	if err != nil || !strings.Contains(a.Address, "@") {
		return fmt.Sprintf("%q is not a mail address", s)
	}
	return ""
}

func phone(s string) string {
	if !e164.Valid(s) {
		return fmt.Sprintf("%q is not an E.164 phone number such as +4915112345678", s)
	}
	return ""
}

func matches(re *regexp.Regexp, what string) func(any) string {
	return func(v any) string {
		if !re.MatchString(v.(string)) {
			return "must be " + what
		}
		return ""
	}
}

func between(lo, hi float64) func(any) string {
	return func(v any) string {
		if n, _ := number(v); n < lo || n > hi {
			return fmt.Sprintf("must be between %g and %g", lo, hi)
		}
		return ""
	}
}

func oneOf(vals ...string) func(any) string {
	return func(v any) string {
		if !slices.Contains(vals, v.(string)) {
			return "must be one of " + strings.Join(vals, ", ")
		}
		return ""
	}
}

// str reads a string setting or secret.
func str(m map[string]any, name string) string {
	s, _ := m[name].(string)
	return s
}

// strs reads a list setting.
func strs(m map[string]any, name string) []string {
	var out []string
	list, _ := m[name].([]any)
	for _, e := range list {
		if s, ok := e.(string); ok {
			out = append(out, s)
		}
	}
	return out
}
