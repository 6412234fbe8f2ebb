package marketing_test

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"platform/kernel/settings"
	"platform/kernel/store"
	"platform/test/apitest"
	"platform/test/testenv"
)

// inboundToken is the mail intake's token on test platforms.
const inboundToken = "test-inbound-token-0123456789abcdef"

// browser is a person's mail client.
const browser = "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0) AppleWebKit/605.1.15 (KHTML, like Gecko)"

// stores is the store of this test run: CI runs the package once per
// store (make test), so each tracking test runs on both without running
// twice in either pass.
var stores = []string{testenv.StoreKind("")}

// fixture is a platform whose CRM and marketing answers are checked
// against their OpenAPI documents.
type fixture struct{ *apitest.Env }

func newFixture(t *testing.T, kind string) *fixture {
	t.Helper()
	p := testenv.NewPlatform(t, testenv.Options{Store: kind, Configure: func(c *settings.Config) { c.MailInboundToken = inboundToken }})
	return &fixture{apitest.Setup(t, p, apitest.Options{Modules: []string{"crm", "marketing"}, Rights: []string{"crm.*", "marketing.*"},
		Collections: []string{"consumers", "maillogs"}})}
}

// consumer creates a consumer through the API.
func (f *fixture) consumer(email string) string {
	f.T.Helper()
	return f.Create("/crm/consumers", map[string]any{"email": email})
}

// mailLog stores a sent mail log through the record service, sent ago.
func (f *fixture) mailLog(consumer string, ago time.Duration) string {
	f.T.Helper()
	r := f.P.Registry.Get("marketing", "maillogs")
	doc, err := f.P.Service.Insert(f.P.Ctx(), r, store.Doc{"to": "ada@example.com", "consumer": consumer,
		"status": "sent", "source": "newsletter", "sentAt": time.Now().UTC().Add(-ago).Truncate(time.Millisecond)})
	require.NoError(f.T, err)
	return doc["_id"].(string)
}

// noRedirect is a client that shows redirects instead of following them.
var noRedirect = &http.Client{Timeout: 30 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// hit requests a tracking URL as a mail client would.
func (f *fixture) hit(method, url, ua string, body string) (*http.Response, string) {
	f.T.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	require.NoError(f.T, err)
	if ua != "" {
		req.Header.Set("User-Agent", ua)
	} else {
		req.Header["User-Agent"] = nil // Go would send its own
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	res, err := noRedirect.Do(req)
	require.NoError(f.T, err)
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	return res, string(data)
}

// names lists the events do recorded.
func (f *fixture) names(do func()) []string {
	f.T.Helper()
	return apitest.Names(f.EventsAfter(do))
}
