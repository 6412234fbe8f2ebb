package notifier_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"platform/test/browser"
	"platform/test/testenv"
)

// clientJS is a browser client: browsers cannot set an Authorization
// header on a WebSocket, so it sends the token in its first message.
// Each socket keeps what it received in window.got[name].
const clientJS = `
window.got = window.got || {};
window.sockets = window.sockets || {};
window.openNotifier = (name, url, token, lastEventId) => {
  window.got[name] = [];
  const ws = new WebSocket(url);
  ws.onopen = () => ws.send(JSON.stringify({type: "auth", token, events: ["consumers.*"], lastEventId}));
  ws.onmessage = (e) => window.got[name].push(JSON.parse(e.data));
  window.sockets[name] = ws;
  return true;
};
true;`

// inChromium: two customers' browser clients each see their own events;
// a browser that reconnects with its last id gets what it missed.
func inChromium(t *testing.T, p *testenv.Platform, crm string) {
	ctx := browser.New(t)
	other, user := p.OtherCustomer("browsed")
	otherTok := p.TokenFor(other.ID, user.ID, "crm.consumers.view", "crm.consumers.create")
	url := wsURL(p.URL, "/notifier")
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(p.URL+"/healthz")))
	evalJS[bool](t, ctx, clientJS)
	evalJS[bool](t, ctx, fmt.Sprintf("openNotifier('a', %q, %q, '')", url, crm))
	evalJS[bool](t, ctx, fmt.Sprintf("openNotifier('b', %q, %q, '')", url, otherTok))
	awaitJS(t, ctx, "got.a.length > 0 && got.b.length > 0 && got.a[0].type === 'ready' && got.b[0].type === 'ready'")

	ours := post(t, p, crm, "/crm/consumers", map[string]any{"email": "browser-a@example.com"})
	theirs := post(t, p, otherTok, "/crm/consumers", map[string]any{"email": "browser-b@example.com"})
	awaitJS(t, ctx, fmt.Sprintf("got.a.some(m => m.data && m.data._id === %q) && got.b.some(m => m.data && m.data._id === %q)", ours, theirs))
	leaked := evalJS[bool](t, ctx, fmt.Sprintf(
		"got.a.some(m => m.data && m.data._id === %q) || got.b.some(m => m.data && m.data._id === %q)", theirs, ours))
	require.False(t, leaked, "a browser client saw the other customer's event")

	last := evalJS[string](t, ctx, "sockets.a.close(); got.a.filter(m => m.type === 'event').pop().id")
	missed := post(t, p, crm, "/crm/consumers", map[string]any{"email": "browser-missed@example.com"})
	evalJS[bool](t, ctx, fmt.Sprintf("openNotifier('a2', %q, %q, %q)", url, crm, last))
	awaitJS(t, ctx, fmt.Sprintf("got.a2.some(m => m.type === 'event' && m.data._id === %q)", missed))
}

// evalJS evaluates JavaScript in the page.
func evalJS[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	require.NoError(t, err, "%s", expr)
	return v
}

// awaitJS polls a JavaScript condition in the page (10 seconds at most).
func awaitJS(t *testing.T, ctx context.Context, cond string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if evalJS[bool](t, ctx, "!!("+cond+")") {
			return
		}
		if time.Now().After(deadline) {
			dump, _ := chromedp.Run(ctx, chromedp.Evaluate[string]("JSON.stringify(window.got).slice(0, 2000)"))
			t.Fatalf("timed out waiting for %s; received %s", strings.TrimSpace(cond), dump)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
