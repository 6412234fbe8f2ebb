package channels

import (
	"context"
	"net/http"
	"regexp"
	"strings"
)

// push publishes to an ntfy topic (https://docs.ntfy.sh/publish/#publish-as-json):
// POST <baseUrl>/ with {"topic", "title", "message", "priority"}, and
// "Authorization: Bearer <accessToken>" when the server needs one. Every
// device subscribed to the topic gets the notification; baseUrl names a
// self-hosted server instead of ntfy.sh.
type push struct{}

var _ Kind = push{}

var topicRE = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

func init() { register(push{}) }

func (push) Name() string { return KindPush }

func (push) Settings() []Setting {
	return []Setting{
		{Name: "topic", Required: true, Type: TypeString, Check: matches(topicRE, "1 to 64 letters, digits, _ or -"), Description: "the ntfy topic the devices subscribe to"},
		{Name: "priority", Type: TypeInteger, Check: between(1, 5), Description: "1 (min) to 5 (max); the server's default (3) when absent"},
		{Name: "baseUrl", Type: TypeString, Default: "https://ntfy.sh", Check: httpURL, Description: "the ntfy server"},
		{Name: "accessToken", Secret: true, Type: TypeString, Check: maxRunes(512), Description: "an access token of the server (sealed, never shown)"},
	}
}

func (push) Send(ctx context.Context, env *Env, t Target, m Message) error {
	p := map[string]any{"topic": str(t.Settings, "topic"), "message": truncate(m.Body, 4096)}
	if m.Subject != "" {
		p["title"] = m.Subject
	}
	if n, ok := number(t.Settings["priority"]); ok {
		p["priority"] = int(n)
	}
	c, err := jsonCall(KindPush, strings.TrimRight(str(t.Settings, "baseUrl"), "/")+"/", p)
	if err != nil {
		return err
	}
	if tok := str(t.Secrets, "accessToken"); tok != "" {
		c.header = http.Header{"Authorization": {"Bearer " + tok}}
	}
	return env.do(ctx, c)
}
