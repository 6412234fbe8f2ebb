package newsletter

import (
	"html"
	"regexp"
	"strings"

	"github.com/mailgun/raymond/v2"

	"platform/kernel/store"
	"platform/modules/marketing/tracking"
)

// Scope is what a template sees: the recipient, the customer sending and
// the recipient's opt-out link.
func Scope(consumer, customer store.Doc, unsubscribeURL string) map[string]any {
	return map[string]any{"consumer": consumer, "customer": customer, "unsubscribeUrl": unsubscribeURL}
}

// Render runs the template on scope; Handlebars escapes values as HTML.
func Render(tpl *raymond.Template, scope map[string]any) (string, error) {
	return tpl.Exec(scope)
}

// hrefRE finds the absolute http(s) links of anchors.
var hrefRE = regexp.MustCompile(`(?i)(<a\b[^>]*?\bhref\s*=\s*)("([^"]*)"|'([^']*)')`)

// Track rewrites the anchors' absolute http(s) links to go through the
// click redirect of the mail log, except the opt-out link, and adds the
// open pixel (before </body>, or at the end).
func Track(body string, sg tracking.Signer, customer, logID, unsubscribeURL string) string {
	body = hrefRE.ReplaceAllStringFunc(body, func(m string) string {
		parts := hrefRE.FindStringSubmatch(m)
		raw := parts[3] + parts[4]
		target := html.UnescapeString(raw)
		lower := strings.ToLower(target)
		if target == unsubscribeURL || !(strings.HasPrefix(lower, "http://") || strings.HasPrefix(lower, "https://")) {
			return m
		}
		return parts[1] + `"` + html.EscapeString(sg.Click(customer, logID, target)) + `"`
	})
	pixel := `<img src="` + html.EscapeString(sg.Pixel(customer, logID)) + `" width="1" height="1" alt="" style="display:none">`
	if i := strings.LastIndex(strings.ToLower(body), "</body>"); i >= 0 {
		return body[:i] + pixel + body[i:]
	}
	return body + pixel
}
