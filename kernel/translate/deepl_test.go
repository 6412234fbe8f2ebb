package translate_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"platform/kernel/outbound"
	"platform/kernel/translate"
	"platform/kernel/translate/translatetest"
)

// guarded is the platform's outbound client with the loopback test
// server opened, as PLATFORM_OUTBOUND_ALLOW opens it in development.
func guarded(t *testing.T) *http.Client {
	g, err := outbound.New([]string{"127.0.0.1"})
	require.NoError(t, err)
	return g.Client(5 * time.Second)
}

func newDeepL(t *testing.T, srv *translatetest.Server, timeout time.Duration) *translate.DeepL {
	d, err := translate.New(translate.Config{BaseURL: srv.URL(), Key: srv.Key, Timeout: timeout}, guarded(t))
	require.NoError(t, err)
	return d
}

func TestDeepLTranslatesText(t *testing.T) {
	srv := translatetest.New(t)
	got, err := newDeepL(t, srv, 0).Translate(context.Background(), []string{"Hello world", "Bye"}, "", "de", translate.FormatText)
	require.NoError(t, err)
	assert.Equal(t, []string{"de:Hello de:world", "de:Bye"}, got)
	req := srv.Requests()
	require.Len(t, req, 1)
	assert.Equal(t, "DeepL-Auth-Key "+srv.Key, req[0].Auth)
	assert.Equal(t, "DE", req[0].TargetLang)
	assert.Empty(t, req[0].SourceLang, "source detected")
	assert.Empty(t, req[0].TagHandling)
}

func TestDeepLTranslatesHTML(t *testing.T) {
	srv := translatetest.New(t)
	in := `<p>Hi <code>x y</code> <span translate="no">Acme Inc</span> &amp; bye</p>`
	got, err := newDeepL(t, srv, 0).Translate(context.Background(), []string{in}, "en-GB", "pt", translate.FormatHTML)
	require.NoError(t, err)
	assert.Equal(t, `<p>pt-br:Hi <code>x y</code> <span translate="no">Acme Inc</span> &amp; pt-br:bye</p>`, got[0])
	req := srv.Requests()[0]
	assert.Equal(t, "EN", req.SourceLang)
	assert.Equal(t, "PT-BR", req.TargetLang)
	assert.Equal(t, "html", req.TagHandling)
	assert.Contains(t, req.IgnoreTags, "code")
}

func TestDeepLBatchesByCount(t *testing.T) {
	srv := translatetest.New(t)
	texts := make([]string, 120)
	for i := range texts {
		texts[i] = strings.Repeat("w", i%7+1)
	}
	got, err := newDeepL(t, srv, 0).Translate(context.Background(), texts, "", "fr", translate.FormatText)
	require.NoError(t, err)
	require.Len(t, got, 120)
	for i, g := range got {
		assert.Equal(t, "fr:"+texts[i], g, "order kept")
	}
	var sizes []int
	for _, r := range srv.Requests() {
		sizes = append(sizes, len(r.Text))
	}
	assert.Equal(t, []int{50, 50, 20}, sizes)
}

func TestDeepLBatchesBySize(t *testing.T) {
	srv := translatetest.New(t)
	big := strings.Repeat("x", 50<<10)
	texts := []string{big, big, big, big, big}
	got, err := newDeepL(t, srv, 0).Translate(context.Background(), texts, "", "it", translate.FormatText)
	require.NoError(t, err) // the server refuses bodies over 128 KiB
	assert.Len(t, got, 5)
	var sizes []int
	for _, r := range srv.Requests() {
		sizes = append(sizes, len(r.Text))
	}
	assert.Equal(t, []int{2, 2, 1}, sizes)
}

func TestDeepLRefusesMalformedLocales(t *testing.T) {
	srv := translatetest.New(t)
	d := newDeepL(t, srv, 0)
	for _, c := range []struct{ source, target string }{{"", ""}, {"", "german"}, {"", "de_DE_x"}, {"e", "de"}, {"en-", "de"}} {
		_, err := d.Translate(context.Background(), []string{"hi"}, c.source, c.target, translate.FormatText)
		assert.ErrorIs(t, err, translate.ErrLocale, "%q -> %q", c.source, c.target)
	}
	_, err := d.Translate(context.Background(), []string{"hi"}, "", "de", "markdown")
	assert.ErrorIs(t, err, translate.ErrFormat)
	assert.Empty(t, srv.Requests(), "nothing sent")
}
