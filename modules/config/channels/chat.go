package channels

import (
	"context"
	"unicode/utf8"
)

// The chat kinds post to an incoming webhook whose URL carries its token:
// the URL is the secret webhookUrl.
var webhookURL = Setting{Name: "webhookUrl", Secret: true, Required: true, Type: TypeString, Check: httpURL,
	Description: "the incoming webhook's URL, which holds its token (sealed, never shown)"}

// chat is a kind that posts one JSON document to its webhook URL.
type chat struct {
	name     string
	settings []Setting
	payload  func(t Target, m Message) any
}

func (c *chat) Name() string        { return c.name }
func (c *chat) Settings() []Setting { return c.settings }

func (c *chat) Send(ctx context.Context, env *Env, t Target, m Message) error {
	req, err := jsonCall(c.name, str(t.Secrets, "webhookUrl"), c.payload(t, m))
	if err != nil {
		return err
	}
	return env.do(ctx, req)
}

var _ Kind = (*chat)(nil)

func init() {
	for _, k := range chatKinds() {
		register(k)
	}
}

// chatKinds are the kinds posting to incoming webhooks.
func chatKinds() []*chat {
	return []*chat{
		// Slack: https://api.slack.com/messaging/webhooks, {"text": ...}.
		{name: KindSlack, settings: []Setting{webhookURL},
			payload: func(_ Target, m Message) any { return map[string]any{"text": chatText(m)} }},

		// Discord: https://discord.com/developers/docs/resources/webhook#execute-webhook,
		// {"content": ...} of at most 2,000 characters, an optional username.
		{name: KindDiscord,
			settings: []Setting{webhookURL, {Name: "username", Type: TypeString, Check: maxRunes(80), Description: "the name the message is posted under"}},
			payload: func(t Target, m Message) any {
				p := map[string]any{"content": truncate(chatText(m), 2000)}
				if u := str(t.Settings, "username"); u != "" {
					p["username"] = u
				}
				return p
			}},

		// Mattermost: https://developers.mattermost.com/integrate/webhooks/incoming/,
		// {"text": ...} with optional channel and username overrides.
		{name: KindMattermost,
			settings: []Setting{webhookURL,
				{Name: "channel", Type: TypeString, Check: maxRunes(64), Description: "the channel to post to instead of the webhook's own"},
				{Name: "username", Type: TypeString, Check: maxRunes(64), Description: "the name the message is posted under"}},
			payload: func(t Target, m Message) any {
				p := map[string]any{"text": chatText(m)}
				for _, k := range []string{"channel", "username"} {
					if v := str(t.Settings, k); v != "" {
						p[k] = v
					}
				}
				return p
			}},

		// Google Chat: https://developers.google.com/workspace/chat/quickstart/webhooks,
		// {"text": ...}.
		{name: KindGoogleChat, settings: []Setting{webhookURL},
			payload: func(_ Target, m Message) any { return map[string]any{"text": chatText(m)} }},

		// Microsoft Teams: an incoming webhook of a Teams workflow (the
		// Office 365 connectors are retired) takes a message with an Adaptive
		// Card attachment: https://learn.microsoft.com/microsoftteams/platform/webhooks-and-connectors/how-to/add-incoming-webhook.
		{name: KindTeams, settings: []Setting{webhookURL}, payload: teamsCard},
	}
}

func teamsCard(_ Target, m Message) any {
	var body []any
	if m.Subject != "" {
		body = append(body, map[string]any{"type": "TextBlock", "text": m.Subject, "weight": "Bolder", "size": "Medium", "wrap": true})
	}
	body = append(body, map[string]any{"type": "TextBlock", "text": m.Body, "wrap": true})
	return map[string]any{
		"type": "message",
		"attachments": []any{map[string]any{
			"contentType": "application/vnd.microsoft.card.adaptive",
			"contentUrl":  nil,
			"content": map[string]any{
				"$schema": "http://adaptivecards.io/schemas/adaptive-card.json",
				"type":    "AdaptiveCard", "version": "1.4", "body": body,
			},
		}},
	}
}

func maxRunes(n int) func(any) string {
	return func(v any) string {
		if utf8.RuneCountInString(v.(string)) > n {
			return "is too long"
		}
		return ""
	}
}

// truncate cuts s to at most n characters, marking the cut with "…".
func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
