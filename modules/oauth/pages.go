package oauth

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"html/template"
	"net/http"
	"net/url"

	"platform/modules/oauth/scopes"
)

//go:embed pages/*.html
var pageFiles embed.FS

// pageCSS is the only styling: inline, allowed by its hash in the CSP.
const pageCSS = `*{box-sizing:border-box}body{margin:0;min-height:100vh;display:flex;align-items:center;justify-content:center;` +
	`background:#f3f4f6;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#111827}` +
	`.card{background:#fff;width:100%;max-width:26rem;margin:1rem;padding:2rem;border-radius:.75rem;box-shadow:0 1px 3px rgba(0,0,0,.12)}` +
	`h1{font-size:1.35rem;margin:0 0 .5rem}h2{font-size:1rem;margin:1rem 0 .25rem}.lead{margin:0}.muted{color:#6b7280;font-size:.875rem}` +
	`label{display:block;margin-top:1rem;font-weight:600;font-size:.875rem}` +
	`input[type=email],input[type=password]{width:100%;padding:.6rem .75rem;margin-top:.25rem;border:1px solid #d1d5db;border-radius:.5rem;font:inherit}` +
	`button{margin-top:1.25rem;padding:.6rem 1.2rem;border:1px solid #d1d5db;border-radius:.5rem;background:#fff;font:inherit;cursor:pointer}` +
	`button.primary{background:#1d4ed8;border-color:#1d4ed8;color:#fff}.buttons{display:flex;gap:.75rem;justify-content:flex-end}` +
	`ul{margin:.25rem 0;padding-left:1.25rem}.error{color:#b91c1c}.group{border-top:1px solid #e5e7eb}`

var cssHash = func() string {
	sum := sha256.Sum256([]byte(pageCSS))
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}()

var pageTemplates = func() map[string]*template.Template {
	out := map[string]*template.Template{}
	for _, name := range []string{"login", "consent", "error"} {
		out[name] = template.Must(template.ParseFS(pageFiles, "pages/layout.html", "pages/"+name+".html"))
	}
	return out
}()

// pageData is what every page shows.
type pageData struct {
	Title    string
	CSS      template.CSS
	App      string
	Customer string
	Email    string
	Error    string
	CSRF     string
	Action   string
	Groups   []scopes.Group
	Withheld string
}

// securityHeaders: no framing, no scripts, no external loads; forms may
// post here and (Chromium applies form-action to the redirect that follows)
// go on to the app's redirect URI.
func securityHeaders(w http.ResponseWriter, redirect *url.URL) {
	formAction := "'self'"
	if redirect != nil && redirect.Scheme != "" {
		formAction += " " + redirect.Scheme + "://" + redirect.Host
	}
	h := w.Header()
	h.Set("Content-Security-Policy", "default-src 'none'; style-src "+cssHash+"; form-action "+formAction+
		"; frame-ancestors 'none'; base-uri 'none'")
	h.Set("X-Frame-Options", "DENY")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-store")
	h.Set("Pragma", "no-cache")
}

func renderPage(w http.ResponseWriter, status int, name string, redirect *url.URL, d pageData) {
	d.CSS = template.CSS(pageCSS)
	var buf bytes.Buffer
	if err := pageTemplates[name].Execute(&buf, d); err != nil {
		http.Error(w, "page failed", http.StatusInternalServerError)
		return
	}
	securityHeaders(w, redirect)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

func renderError(w http.ResponseWriter, status int, title, msg string) {
	renderPage(w, status, "error", nil, pageData{Title: title, Error: msg})
}
