package marketing

import (
	"context"
	"crypto/subtle"
	"errors"
	"net/http"
	"strings"

	"platform/api"
	"platform/kernel/resource"
	"platform/kernel/tenant"
	"platform/modules/marketing/maillog"
	"platform/modules/marketing/reports"
	"platform/modules/marketing/tracking"
)

// Intake is the mail provider's bounce and complaint intake,
// POST /marketing/inbound/mail (docs/tracking.md). It is the
// installation's, not a customer's: the Message-ID of the reported mail
// names the customer and the mail log.
type Intake struct {
	Token   string // PLATFORM_MAIL_INBOUND_TOKEN; empty: the intake is off
	Service *resource.Service
}

// IntakePath is the intake's route below the module.
const IntakePath = "/inbound/mail"

func (in *Intake) receive(req *api.Request) (*api.Response, error) {
	if err := in.authenticate(req); err != nil {
		return nil, err
	}
	body, err := req.Body()
	if err != nil {
		return nil, err
	}
	rep, err := reports.Parse(req.Header("Content-Type"), body)
	if errors.Is(err, reports.ErrMalformed) {
		return nil, api.BadRequest(resource.CodeMalformed, "", "%s", err.Error())
	}
	if err != nil {
		return nil, err
	}
	out, err := in.apply(context.WithoutCancel(req.Ctx), rep)
	if err != nil {
		return nil, err
	}
	return &api.Response{Payload: out}, nil
}

// authenticate takes the token as a bearer token or as the password of
// Basic authentication (providers that only call user:password@ URLs).
func (in *Intake) authenticate(req *api.Request) error {
	if in.Token == "" {
		return api.NewError(http.StatusForbidden, resource.CodeScope, "", "the mail intake is off: PLATFORM_MAIL_INBOUND_TOKEN is not set")
	}
	got := bearerOrBasic(req)
	if got == "" || subtle.ConstantTimeCompare([]byte(got), []byte(in.Token)) != 1 {
		e := api.Unauthorized("send the mail intake token as a bearer token or a Basic password")
		e.Header.Add("WWW-Authenticate", `Basic realm="mail intake"`)
		return e
	}
	return nil
}

func bearerOrBasic(req *api.Request) string {
	h := req.Header("Authorization")
	if tok, ok := strings.CutPrefix(h, "Bearer "); ok {
		return strings.TrimSpace(tok)
	}
	r := http.Request{Header: http.Header{"Authorization": {h}}}
	if _, pw, ok := r.BasicAuth(); ok {
		return pw
	}
	return ""
}

// apply moves the reported mail log; a report of no mail of the platform
// (or of no move) is answered, not refused, so the provider does not
// send it again.
func (in *Intake) apply(ctx context.Context, rep reports.Report) (map[string]any, error) {
	out := map[string]any{"type": rep.Type, "messageId": rep.MessageID, "matched": false, "moved": false}
	customer, id, ok := tracking.ParseMessageID(rep.MessageID)
	if !ok || rep.Type == "" {
		return out, nil
	}
	status := maillog.Bounced
	if rep.Type == reports.Complaint {
		status = maillog.Complained
	}
	doc, moved, err := maillog.Logs{Service: in.Service}.Report(tenant.WithCustomer(ctx, customer), id, status, rep.Reason)
	if resource.KindOf(err) == resource.KindNotFound {
		return out, nil
	}
	if err != nil {
		return nil, err
	}
	out["matched"], out["moved"], out["maillog"], out["status"] = true, moved, id, doc["status"]
	return out, nil
}
