package blocks

import (
	_ "embed"
	"strings"
)

//go:embed site.css
var siteCSS []byte

// CSS is the site stylesheet: the blocks' layout and the responsive
// classes (hide-, align-, space- per screen). Serve it at Input.SiteCSS;
// a copy is returned, so a caller cannot change what the next one gets.
func CSS() []byte { return append([]byte(nil), siteCSS...) }

// NotFound is the document of a page that does not exist, in the
// language of locale (English when the platform has not its words).
func NotFound(locale string) string {
	var b strings.Builder
	// The template and its input are the platform's: it cannot fail.
	_ = templates.ExecuteTemplate(&b, "notfound", pageLocale(locale))
	return b.String()
}
