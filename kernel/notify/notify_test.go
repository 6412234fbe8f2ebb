package notify

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	smtpmock "github.com/mocktools/go-smtp-mock/v2"

	"platform/kernel/settings"
)

type fakeSender struct{ got []Message }

func (f *fakeSender) Send(_ context.Context, m Message) error {
	f.got = append(f.got, m)
	return nil
}

func TestRouterDispatchesByChannel(t *testing.T) {
	mail, sms, push := &fakeSender{}, &fakeSender{}, &fakeSender{}
	r := &Router{Mail: mail, SMS: sms, Push: push}
	for _, m := range []Message{
		{Channel: ChannelMail, To: []string{"alice@example.com"}, Body: "m"},
		{Channel: ChannelSMS, To: []string{"+4915112345678"}, Body: "s"},
		{Channel: ChannelPush, To: []string{"token"}, Body: "p"},
	} {
		if err := r.Send(context.Background(), m); err != nil {
			t.Fatalf("%s: %v", m.Channel, err)
		}
	}
	if len(mail.got) != 1 || mail.got[0].Body != "m" || len(sms.got) != 1 || sms.got[0].Body != "s" || len(push.got) != 1 || push.got[0].Body != "p" {
		t.Fatalf("mail %v sms %v push %v", mail.got, sms.got, push.got)
	}
}

func TestRouterUnconfiguredChannel(t *testing.T) {
	r := &Router{Mail: &fakeSender{}}
	err := r.Send(context.Background(), Message{Channel: ChannelSMS, To: []string{"+4915112345678"}, Body: "b"})
	if !errors.Is(err, ErrNotConfigured) || !IsPermanent(err) || !strings.Contains(err.Error(), "PLATFORM_SMS_URL") {
		t.Fatalf("err = %v, want permanent ErrNotConfigured naming PLATFORM_SMS_URL", err)
	}
}

func TestRouterUnknownChannel(t *testing.T) {
	f := &fakeSender{}
	r := &Router{Mail: f, SMS: f, Push: f}
	for _, ch := range []string{"", "fax", "Mail"} {
		err := r.Send(context.Background(), Message{Channel: ch, To: []string{"alice@example.com"}})
		if !errors.Is(err, ErrUnknownChannel) || !IsPermanent(err) {
			t.Errorf("channel %q: err = %v, want permanent ErrUnknownChannel", ch, err)
		}
	}
	if len(f.got) != 0 {
		t.Errorf("sender called %d times", len(f.got))
	}
}

func TestRouterRejectsBadRecipientsBeforeSending(t *testing.T) {
	// Real senders pointed at a provider that counts requests and an SMTP
	// server that records sessions: nothing may reach either.
	rc := &recorder{}
	url := startProvider(t, rc)
	srv, addr := startSMTP(t, smtpmock.ConfigurationAttr{})
	r := &Router{Mail: testMailer(addr), SMS: &HTTPSMS{URL: url}, Push: &HTTPPush{URL: url}}
	bad := map[string][][]string{
		ChannelMail: {nil, {}, {""}, {"not-an-address"}, {"alice@"}, {"@example.com"}, {"alice@example.com", "bob"}, {"a@example.com\r\nBcc: x@example.com"}},
		ChannelSMS:  {nil, {"015112345678"}, {"+49 151 12345678"}, {"+4915112345678x"}, {"+1"}, {"+999123456789"}, {"alice@example.com"}},
		ChannelPush: {nil, {""}, {"tok en"}, {"tok\n"}, {strings.Repeat("a", MaxPushTokenLen+1)}, {"ok", ""}},
	}
	for ch, lists := range bad {
		for _, to := range lists {
			err := r.Send(context.Background(), Message{Channel: ch, To: to, Body: "b"})
			if !errors.Is(err, ErrInvalidRecipient) || !IsPermanent(err) {
				t.Errorf("%s %q: err = %v, want permanent ErrInvalidRecipient", ch, to, err)
			}
		}
	}
	tooMany := make([]string, MaxRecipients+1)
	for i := range tooMany {
		tooMany[i] = fmt.Sprintf("u%d@example.com", i)
	}
	if err := r.Send(context.Background(), Message{Channel: ChannelMail, To: tooMany}); !errors.Is(err, ErrInvalidRecipient) {
		t.Errorf("%d recipients: err = %v", len(tooMany), err)
	}
	if n := len(rc.requests()); n != 0 {
		t.Errorf("%d HTTP requests were made", n)
	}
	if n := len(srv.Messages()); n != 0 {
		t.Errorf("%d SMTP sessions were opened", n)
	}
}

func TestValidateRecipientsAccepts(t *testing.T) {
	ok := map[string][]string{
		ChannelMail: {"alice@example.com", "Bob Builder <bob@example.org>", "x+tag@sub.example.co.uk"},
		ChannelSMS:  {"+4915112345678", "+14155550123", "+442071838750"},
		ChannelPush: {"fcm:APA91bH-token_1", strings.Repeat("f", MaxPushTokenLen), "0123456789abcdef"},
	}
	for ch, to := range ok {
		if err := ValidateRecipients(ch, to); err != nil {
			t.Errorf("%s %q: %v", ch, to, err)
		}
	}
}

func TestPermanent(t *testing.T) {
	if Permanent(nil) != nil {
		t.Error("Permanent(nil) != nil")
	}
	base := errors.New("boom")
	p := Permanent(base)
	if !IsPermanent(p) || !errors.Is(p, base) || p.Error() != "boom" {
		t.Errorf("Permanent(base) = %v", p)
	}
	if !IsPermanent(fmt.Errorf("step: %w", p)) {
		t.Error("wrapping lost permanence")
	}
	if Permanent(p) != p {
		t.Error("Permanent wrapped twice")
	}
	if IsPermanent(base) || IsPermanent(nil) {
		t.Error("plain errors must be transient")
	}
}

func TestFromConfig(t *testing.T) {
	r := FromConfig(&settings.Config{SMTPFrom: "platform@localhost", SMTPTLS: "starttls"})
	if r.Mail != nil || r.SMS != nil || r.Push != nil {
		t.Fatalf("nothing configured, got %+v", r)
	}
	r = FromConfig(&settings.Config{
		SMTPAddr: "smtp.example.com:587", SMTPFrom: "p@example.com", SMTPUsername: "u", SMTPPassword: "pw", SMTPTLS: "tls",
		SMSURL: "https://sms.example.com/send", SMSToken: "st",
	})
	ml, ok := r.Mail.(*Mailer)
	if !ok || ml.Addr != "smtp.example.com:587" || ml.From != "p@example.com" || ml.Username != "u" || ml.Password != "pw" || ml.TLS != TLSImplicit {
		t.Errorf("Mail = %#v", r.Mail)
	}
	if s, ok := r.SMS.(*HTTPSMS); !ok || s.URL != "https://sms.example.com/send" || s.Token != "st" {
		t.Errorf("SMS = %#v", r.SMS)
	}
	if r.Push != nil {
		t.Errorf("Push = %#v, want nil", r.Push)
	}
	err := r.Send(context.Background(), Message{Channel: ChannelPush, To: []string{"t"}})
	if !errors.Is(err, ErrNotConfigured) {
		t.Errorf("push: err = %v", err)
	}
}

func TestConfigSettings(t *testing.T) {
	t.Setenv("PLATFORM_SMTP_PASSWORD", "from-env")
	cfg, err := settings.Load("test", []string{"--smtp-addr", "127.0.0.1:2525", "--smtp-tls", "none", "--push-url", "http://127.0.0.1:9/push"})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.SMTPAddr != "127.0.0.1:2525" || cfg.SMTPTLS != "none" || cfg.SMTPFrom != "platform@localhost" || cfg.SMTPPassword != "from-env" || cfg.PushURL != "http://127.0.0.1:9/push" || cfg.SMSURL != "" {
		t.Fatalf("cfg = %+v", cfg)
	}
	for _, args := range [][]string{{"--smtp-tls", "ssl"}, {"--smtp-addr", "nohost"}, {"--smtp-from", "nobody"}, {"--sms-url", "ftp://x"}} {
		if _, err := settings.Load("test", args); err == nil {
			t.Errorf("%v accepted", args)
		}
	}
}

func TestConfigHelpHidesSecrets(t *testing.T) {
	t.Setenv("PLATFORM_SMTP_PASSWORD", "pw-from-env")
	t.Setenv("PLATFORM_SMS_TOKEN", "sms-from-env")
	t.Setenv("PLATFORM_PUSH_TOKEN", "push-from-env")
	t.Setenv("PLATFORM_SMTP_USERNAME", "user-from-env")
	_, err := settings.Load("test", []string{"--help-settings"})
	var h *settings.Help
	if !errors.As(err, &h) || !strings.Contains(h.Text, "PLATFORM_SMTP_PASSWORD") {
		t.Fatalf("no settings listed (err %v)", err)
	}
	help := h.Text
	for _, secret := range []string{"pw-from-env", "sms-from-env", "push-from-env"} {
		if strings.Contains(help, secret) {
			t.Errorf("--help shows %s", secret)
		}
	}
	if !strings.Contains(help, "user-from-env") {
		t.Errorf("--help should still show ordinary settings from the environment")
	}
}
