package console

import (
	"errors"
	"net/http"
	"net/url"
	"strings"

	"platform/kernel/resource"
)

// maxForm bounds a form post (a record's fields, JSON of nested values).
const maxForm = 1 << 20

func (c *Console) routes() {
	m := http.NewServeMux()
	m.HandleFunc("GET /console/static/console.css", c.css)
	m.HandleFunc("GET /console/signin", c.signin)
	m.HandleFunc("GET /console/callback", c.callback)
	m.HandleFunc("GET /console", c.redirectHome)
	m.HandleFunc("GET /console/{$}", c.signedIn(c.home))
	m.HandleFunc("POST /console/signout", c.signedIn(c.signout))
	m.HandleFunc("GET /console/ops", c.signedIn(c.ops))
	m.HandleFunc("GET /console/r/{module}/{plural}", c.signedIn(c.resource(c.list)))
	m.HandleFunc("POST /console/r/{module}/{plural}", c.signedIn(c.resource(c.create)))
	m.HandleFunc("GET /console/r/{module}/{plural}/new", c.signedIn(c.resource(c.newForm)))
	m.HandleFunc("GET /console/r/{module}/{plural}/{id}", c.signedIn(c.resource(c.view)))
	m.HandleFunc("POST /console/r/{module}/{plural}/{id}", c.signedIn(c.resource(c.update)))
	m.HandleFunc("GET /console/r/{module}/{plural}/{id}/edit", c.signedIn(c.resource(c.editForm)))
	m.HandleFunc("POST /console/r/{module}/{plural}/{id}/delete", c.signedIn(c.resource(c.remove)))
	m.HandleFunc("GET /console/r/{module}/{plural}/{id}/actions/{action}", c.signedIn(c.resource(c.actionForm)))
	m.HandleFunc("POST /console/r/{module}/{plural}/{id}/actions/{action}", c.signedIn(c.resource(c.action)))
	m.HandleFunc("/", c.notFound)
	c.mux = m
}

func (c *Console) redirectHome(w http.ResponseWriter, r *http.Request) {
	http.Redirect(w, r, c.link("/"), http.StatusFound)
}

func (c *Console) notFound(w http.ResponseWriter, r *http.Request) {
	c.render(w, r, http.StatusNotFound, "error", &page{Title: "Not found", Error: "There is no such page in the console."})
}

// signedIn runs h with the browser's session. Without one, a page asks to
// sign in (and comes back here after). Every unsafe request must carry the
// session's CSRF token and, when the browser names it, the console's own
// origin.
func (c *Console) signedIn(h func(http.ResponseWriter, *http.Request, *session)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		b, err := c.sessions.load(r.Context(), r)
		if err != nil {
			c.fail(w, r, err)
			return
		}
		if b == nil {
			c.toSignin(w, r)
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead && !c.sameOriginPost(w, r, b) {
			c.render(w, r, http.StatusForbidden, "error", &page{Title: "Refused", S: b,
				Error: "This form is missing its security token or comes from another site; nothing was done. Reload the page and try again."})
			return
		}
		h(w, r, b)
	}
}

func (c *Console) sameOriginPost(w http.ResponseWriter, r *http.Request, b *session) bool {
	r.Body = http.MaxBytesReader(w, r.Body, maxForm)
	if err := r.ParseForm(); err != nil {
		return false
	}
	if o := r.Header.Get("Origin"); o != "" && o != c.base.Scheme+"://"+c.base.Host {
		return false
	}
	return b.checkCSRF(r.PostForm.Get("csrf_token"))
}

func (c *Console) toSignin(w http.ResponseWriter, r *http.Request) {
	ret := ""
	if r.Method == http.MethodGet {
		ret = strings.TrimPrefix(r.URL.RequestURI(), "/console")
	}
	c.render(w, r, http.StatusUnauthorized, "signin", &page{Title: "Sign in", Workspace: c.d.DefaultWorkspace, Return: safeReturn(ret),
		Error: "Sign in to continue."})
}

// resource finds the declared resource of the path; the user needs its
// view right for every page of it (the API checks again).
func (c *Console) resource(h func(http.ResponseWriter, *http.Request, *caller, *resource.Resource)) func(http.ResponseWriter, *http.Request, *session) {
	return func(w http.ResponseWriter, r *http.Request, b *session) {
		res := c.d.Registry.Get(r.PathValue("module"), r.PathValue("plural"))
		k := &caller{c: c, b: b}
		if res == nil {
			c.notFound(w, r)
			return
		}
		if !k.allows(res.Right("view")) {
			c.forbidden(w, r, k, res.Right("view"))
			return
		}
		h(w, r, k, res)
	}
}

func (c *Console) forbidden(w http.ResponseWriter, r *http.Request, k *caller, right string) {
	c.render(w, r, http.StatusForbidden, "error", c.page(k, "Not allowed", &page{Error: "Your sign-in does not grant " + right + "."}))
}

// fail answers an unexpected error; an ended session goes to sign-in.
func (c *Console) fail(w http.ResponseWriter, r *http.Request, err error) {
	if errors.Is(err, errSignedOut) {
		c.sessions.end(r.Context(), w, nil)
		c.toSignin(w, r)
		return
	}
	if r.Context().Err() != nil {
		return // the browser went away: nothing to answer
	}
	c.d.Log.ErrorContext(r.Context(), "console", "path", r.URL.Path, "error", err.Error())
	c.render(w, r, http.StatusServiceUnavailable, "error", &page{Title: "Unavailable", Error: "The console could not complete this request. Try again shortly."})
}

// apiFailed shows an API error answer (403, 404, 409, ...) as a page.
func (c *Console) apiFailed(w http.ResponseWriter, r *http.Request, k *caller, a *answer) {
	status := a.Status
	if status < 400 {
		status = http.StatusBadGateway
	}
	c.render(w, r, status, "error", c.page(k, http.StatusText(a.Status), &page{Error: a.message()}))
}

// recordPath is the console's page of a record.
func (c *Console) recordPath(res *resource.Resource, id string) string {
	return c.link("/r/" + res.Module + "/" + res.Plural + "/" + url.PathEscape(id))
}

func (c *Console) listPath(res *resource.Resource) string {
	return c.link("/r/" + res.Module + "/" + res.Plural)
}

func apiPath(res *resource.Resource) string { return "/" + res.Module + "/" + res.Plural }
