package app

import (
	"context"
	"fmt"
	"net/mail"
	"strings"

	"platform/activities/newsletters"
	"platform/kernel/temporalx"
	"platform/modules/marketing"
	"platform/modules/marketing/newsletter"
	"platform/modules/marketing/tracking"
)

var _ marketing.Signaller = (*temporalx.Starter)(nil)

// wireMarketing builds the link signer (with the installation's key,
// shared by every replica) and the newsletter sender: the mail channel,
// the signer and the send rate.
func (a *App) wireMarketing(ctx context.Context) error {
	key, err := tracking.LoadKey(ctx, a.Store)
	if err != nil {
		return fmt.Errorf("tracking: %w", err)
	}
	a.Tracking = tracking.Signer{Base: a.Config.TrackingURL, Key: key}
	a.news = &newsletter.Sender{
		Service: a.Service, Customers: a.Identity, Rate: a.Config.NewsletterRate, Lease: a.Config.NewsletterLease, Log: a.Log,
		Signer: a.Tracking, Host: mailHost(a.Config.SMTPFrom),
	}
	if m := a.pipes.notifier.Mail; m != nil {
		a.news.Mailer = m
	}
	return nil
}

// startTracking serves {tracking_url} on the gateway.
func (a *App) startTracking() {
	(&marketing.Tracker{Signer: a.Tracking, Service: a.Service, Log: a.Log}).Mount(a.API)
}

// mailHost is the domain of the sender address, the right-hand side of
// Message-IDs.
func mailHost(from string) string {
	if addr, err := mail.ParseAddress(from); err == nil {
		if i := strings.LastIndexByte(addr.Address, '@'); i >= 0 {
			return addr.Address[i+1:]
		}
	}
	return "localhost"
}

// marketingDeps are the marketing module's dependencies; none for the
// declarations alone (Modules).
func (a *App) marketingDeps() marketing.Deps {
	var d marketing.Deps
	if a.news != nil {
		d.Sender = a.news
	}
	if a.Service != nil {
		d.Intake = &marketing.Intake{Token: a.Config.MailInboundToken, Service: a.Service}
	}
	if a.Temporal != nil && a.Config != nil {
		d.Workflows = a.starter(a.Config.TaskQueue)
	}
	return d
}

// newsletterActivities are the worker's newsletter activities.
func (a *App) newsletterActivities() *newsletters.Activities {
	if a.news == nil {
		panic("app: newsletters are not wired")
	}
	return &newsletters.Activities{Sender: a.news}
}
