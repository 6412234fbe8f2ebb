package channels

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
)

// sms sends through Twilio's Programmable Messaging API
// (https://www.twilio.com/docs/messaging/api/message-resource#create-a-message-resource):
// one form POST per recipient to
// <baseUrl>/2010-04-01/Accounts/<accountSid>/Messages.json with To, From
// (or MessagingServiceSid) and Body, HTTP basic auth with the account SID
// and the auth token. baseUrl may name any gateway speaking that shape.
// Recipients are sent in order; the first failure stops the send.
type sms struct{}

var _ Kind = sms{}

var (
	twilioSIDRE = regexp.MustCompile(`^AC[0-9a-fA-F]{32}$`)
	senderRE    = regexp.MustCompile(`^(\+[1-9][0-9]{6,14}|MG[0-9a-fA-F]{32}|[A-Za-z0-9 ]{1,11})$`)
)

func init() { register(sms{}) }

func (sms) Name() string { return KindSMS }

func (sms) Settings() []Setting {
	return []Setting{
		{Name: "accountSid", Required: true, Type: TypeString, Check: matches(twilioSIDRE, "a Twilio account SID: AC and 32 hexadecimal digits"), Description: "the account SID"},
		{Name: "authToken", Secret: true, Required: true, Type: TypeString, Check: maxRunes(256), Description: "the account's auth token (sealed, never shown)"},
		{Name: "from", Required: true, Type: TypeString, Check: matches(senderRE, "an E.164 number, a messaging service SID (MG...) or an alphanumeric sender id of up to 11 characters"),
			Description: "the sender"},
		{Name: "to", Required: true, Type: TypeStrings, Check: each(phone), Description: "the recipients' E.164 numbers"},
		{Name: "baseUrl", Type: TypeString, Default: "https://api.twilio.com", Check: httpURL, Description: "the API's base URL"},
	}
}

func (sms) Send(ctx context.Context, env *Env, t Target, m Message) error {
	sid := str(t.Settings, "accountSid")
	endpoint := strings.TrimRight(str(t.Settings, "baseUrl"), "/") + "/2010-04-01/Accounts/" + sid + "/Messages.json"
	from := str(t.Settings, "from")
	for _, to := range strs(t.Settings, "to") {
		form := url.Values{"To": {to}, "Body": {truncate(chatText(m), 1600)}}
		if strings.HasPrefix(from, "MG") {
			form.Set("MessagingServiceSid", from)
		} else {
			form.Set("From", from)
		}
		req := call{kind: KindSMS, method: http.MethodPost, url: endpoint, body: []byte(form.Encode()),
			ctype: "application/x-www-form-urlencoded", header: basicAuth(sid, str(t.Secrets, "authToken"))}
		if err := env.do(ctx, req); err != nil {
			return err
		}
	}
	return nil
}

func basicAuth(user, password string) http.Header {
	r, _ := http.NewRequest(http.MethodGet, "/", nil)
	r.SetBasicAuth(user, password)
	return http.Header{"Authorization": r.Header["Authorization"]}
}
