package notification

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/mailgun/raymond/v2"

	"platform/kernel/store"
	"platform/modules/marketing/newsletter"
)

// MaxRendered bounds a rendered subject or body.
const MaxRendered = 64 << 10

// Compile parses a Handlebars template; a syntax error is a
// *newsletter.SyntaxError with line and column.
func Compile(source string) (*raymond.Template, error) { return newsletter.Compile(source) }

// Render runs a template on scope. Notifications are plain text, so
// values are not HTML-escaped ({{name}} of "Tom & Jerry" stays as it is).
func Render(source string, scope map[string]any) (string, error) {
	tpl, err := Compile(source)
	if err != nil {
		return "", err
	}
	out, err := tpl.Exec(unescaped(scope))
	if err != nil {
		return "", fmt.Errorf("the template does not render: %w", err)
	}
	if len(out) > MaxRendered {
		return "", fmt.Errorf("the template renders %d bytes, at most %d", len(out), MaxRendered)
	}
	return out, nil
}

// RenderField renders the template's subject or body ("" when absent).
func RenderField(tpl store.Doc, field string, scope map[string]any) (string, error) {
	src, _ := tpl[field].(string)
	if src == "" {
		return "", nil
	}
	out, err := Render(src, scope)
	if err != nil {
		return "", fmt.Errorf("%s: %w", field, err)
	}
	return strings.TrimSpace(out), nil
}

// unescaped copies v with every string a raymond.SafeString, which
// Handlebars outputs as it is.
func unescaped(v any) any {
	switch t := v.(type) {
	case string:
		return raymond.SafeString(t)
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			out[k] = unescaped(e)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = unescaped(e)
		}
		return out
	}
	return v
}

func hashID(parts ...string) string {
	h := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	return hex.EncodeToString(h[:12])
}
