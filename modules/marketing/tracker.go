package marketing

import (
	"context"
	"encoding/base64"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"platform/api"
	"platform/kernel/resource"
	"platform/kernel/store"
	"platform/kernel/tenant"
	"platform/modules/marketing/maillog"
	"platform/modules/marketing/tracking"
)

// RootRouter adds public routes at the gateway root (api.Server).
type RootRouter interface {
	HandleRoot(method, path string, h api.HandlerFunc)
}

var _ RootRouter = (*api.Server)(nil)

// Tracker serves {tracking_url}: the open pixel, click redirects and
// unsubscribe links of the platform's mail (docs/tracking.md). It is
// public: every link is checked against its signature before anything
// else, so a forged or altered one is a 404 that touches no record.
type Tracker struct {
	Signer  tracking.Signer
	Service *resource.Service
	Log     *slog.Logger
}

// Mount adds the tracker's routes under the URL path of Signer.Base
// ("/t" by default; "/t" too when Base is a bare host, which a reverse
// proxy then maps onto the gateway's /t).
func (t *Tracker) Mount(r RootRouter) {
	prefix := Prefix(t.Signer.Base)
	for _, m := range []string{http.MethodGet, http.MethodHead} {
		r.HandleRoot(m, prefix+"/o/:customer/:log/:file", t.pixel)
		r.HandleRoot(m, prefix+"/c/:customer/:log/:sig", t.click)
	}
	r.HandleRoot(http.MethodGet, prefix+"/u/:customer/:consumer/:newsletter/:sig", t.unsubscribePage)
	r.HandleRoot(http.MethodPost, prefix+"/u/:customer/:consumer/:newsletter/:sig", t.unsubscribe)
}

// Prefix is the path the tracker serves at for the base URL base.
func Prefix(base string) string {
	u, err := url.Parse(base)
	if err != nil || strings.Trim(u.Path, "/") == "" {
		return "/t"
	}
	return "/" + strings.Trim(u.Path, "/")
}

func linkNotFound() error {
	return api.NewError(http.StatusNotFound, resource.CodeNotFound, "", "no such link")
}

// transparent is the 1x1 transparent GIF of the open pixel.
var transparent, _ = base64.StdEncoding.DecodeString("R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7")

func (t *Tracker) pixel(req *api.Request) (*api.Response, error) {
	cust, id := req.Param("customer"), req.Param("log")
	sig, ok := strings.CutSuffix(req.Param("file"), ".gif")
	if !ok || !t.Signer.Verify(sig, tracking.KindOpen, cust, id) {
		return nil, linkNotFound()
	}
	t.hit(req, cust, id, maillog.Logs.Open)
	return &api.Response{Raw: transparent, ContentType: "image/gif", Header: noCache()}, nil
}

func (t *Tracker) click(req *api.Request) (*api.Response, error) {
	cust, id, target := req.Param("customer"), req.Param("log"), req.Query.Get("u")
	if !t.Signer.Verify(req.Param("sig"), tracking.KindClick, cust, id, target) || !webURL(target) {
		return nil, linkNotFound()
	}
	t.hit(req, cust, id, maillog.Logs.Click)
	return api.Redirect(target), nil
}

// webURL: only http(s) targets are redirected to, even signed ones.
func webURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

func noCache() http.Header {
	return http.Header{"Cache-Control": {"no-store, no-cache, must-revalidate, max-age=0"}, "Pragma": {"no-cache"}, "Expires": {"0"}}
}

// hit records an open or a click. The recipient gets the pixel or the
// redirect whatever happens to the bookkeeping, which a hang-up does not
// cut short; failures are logged.
func (t *Tracker) hit(req *api.Request, customer, id string, move func(maillog.Logs, context.Context, store.Doc, bool) error) {
	ctx, cancel := context.WithTimeout(tenant.WithCustomer(context.WithoutCancel(req.Ctx), customer), 10*time.Second)
	defer cancel()
	logs := maillog.Logs{Service: t.Service}
	doc, err := logs.Load(ctx, id)
	if err == nil {
		machine, _ := tracking.Machine(tracking.Hit{Method: req.Method, UserAgent: req.Header("User-Agent"), SentAt: sentAt(doc), At: time.Now()})
		err = move(logs, ctx, doc, machine)
	}
	switch {
	case resource.KindOf(err) == resource.KindNotFound:
		// A genuine link of a deleted log: normal, and as frequent as mail is read.
		t.Log.DebugContext(ctx, "tracking: hit of a missing mail log", "customer", customer, "maillog", id)
	case err != nil:
		t.Log.WarnContext(ctx, "tracking: hit not recorded", "customer", customer, "maillog", id, "error", err.Error())
	}
}

// sentAt is when the mail of a log left: sentAt, else its creation.
func sentAt(doc store.Doc) time.Time {
	for _, f := range []string{"sentAt", "createdAt"} {
		if t, ok := doc[f].(time.Time); ok {
			return t
		}
	}
	return time.Time{}
}
