package channels

import (
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"time"

	"platform/kernel/outbound"
)

// telegram sends with the Bot API's sendMessage
// (https://core.telegram.org/bots/api#sendmessage): POST
// <baseUrl>/bot<token>/sendMessage with {"chat_id", "text"}. The answer is
// {"ok": true, ...} or {"ok": false, "error_code", "description",
// "parameters": {"retry_after"}}.
type telegram struct{}

var _ Kind = telegram{}

var (
	botTokenRE = regexp.MustCompile(`^[0-9]{1,20}:[A-Za-z0-9_-]{20,100}$`)
	chatIDRE   = regexp.MustCompile(`^(-?[0-9]{1,20}|@[A-Za-z][A-Za-z0-9_]{4,31})$`)
)

func init() { register(telegram{}) }

func (telegram) Name() string { return KindTelegram }

func (telegram) Settings() []Setting {
	return []Setting{
		{Name: "botToken", Secret: true, Required: true, Type: TypeString, Check: matches(botTokenRE, "a bot token such as 123456:ABC-DEF1234ghIkl-zyx57W2v1u123ew11"),
			Description: "the bot's token from @BotFather (sealed, never shown)"},
		{Name: "chatId", Required: true, Type: TypeString, Check: matches(chatIDRE, "a chat id (an integer, negative for groups) or @channelusername"),
			Description: "the chat to post to"},
		{Name: "baseUrl", Type: TypeString, Default: "https://api.telegram.org", Check: httpURL, Description: "the Bot API server"},
	}
}

func (telegram) Send(ctx context.Context, env *Env, t Target, m Message) error {
	endpoint := strings.TrimRight(str(t.Settings, "baseUrl"), "/") + "/bot" + str(t.Secrets, "botToken") + "/sendMessage"
	c, err := jsonCall(KindTelegram, endpoint, map[string]any{"chat_id": str(t.Settings, "chatId"), "text": truncate(chatText(m), 4096)})
	if err != nil {
		return err
	}
	c.check = telegramOK
	err = env.do(ctx, c)
	return telegramError(err)
}

type telegramAnswer struct {
	OK          bool   `json:"ok"`
	ErrorCode   int    `json:"error_code"`
	Description string `json:"description"`
	Parameters  struct {
		RetryAfter int `json:"retry_after"`
	} `json:"parameters"`
}

func telegramOK(body []byte) error {
	var a telegramAnswer
	if err := json.Unmarshal(body, &a); err != nil || !a.OK {
		return &outbound.PermanentError{Service: KindTelegram, Status: http.StatusOK, Message: outbound.Bound(a.Description, 300)}
	}
	return nil
}

// telegramError reads the retry_after of a 429 from the body, where
// Telegram puts it.
func telegramError(err error) error {
	re, ok := err.(*outbound.RetryableError)
	if !ok || re.RetryAfter > 0 {
		return err
	}
	var a telegramAnswer
	if json.Unmarshal([]byte(re.Message), &a) == nil && a.Parameters.RetryAfter > 0 {
		re.RetryAfter = time.Duration(a.Parameters.RetryAfter) * time.Second
	}
	return err
}
