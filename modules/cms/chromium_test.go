package cms_test

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"platform/test/browser"
)

// consoleErrors collects what a page reports as broken: uncaught
// exceptions, console errors, and log errors other than the network's
// (the test machine reaches no image host nor video provider).
type consoleErrors struct {
	mu   sync.Mutex
	seen []string
}

func (c *consoleErrors) listen(ev any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch e := ev.(type) {
	case *runtime.EventExceptionThrown:
		c.seen = append(c.seen, "exception: "+e.ExceptionDetails.Text)
	case *runtime.EventConsoleAPICalled:
		if e.Type == "error" {
			c.seen = append(c.seen, fmt.Sprintf("console.error: %v", e.Args))
		}
	case *log.EventEntryAdded:
		if e.Entry.Level == log.EntryLevelError && e.Entry.Source != log.EntrySourceNetwork {
			c.seen = append(c.seen, string(e.Entry.Source)+": "+e.Entry.Text)
		}
	}
}

func (c *consoleErrors) list() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.seen...)
}

// TestPageInChromium: a published page with every block type renders in
// a real browser under the site's CSP without a console error, and holds
// no script at all (the platform writes none) and no frame but the
// embed's player.
func TestPageInChromium(t *testing.T) {
	ctx := browser.New(t)
	e := newSiteEnv(t)
	snip := e.do(http.MethodPost, "/cms/snippets", map[string]any{"name": "footer", "blocks": []any{map[string]any{"type": "text", "body": "Footer"}}}, http.StatusCreated)
	list := append(blocksOf(t, everyType),
		map[string]any{"type": "text", "body": "Hostile <script>alert(1)</script><img src=x onerror=alert(2)> [x](javascript:alert(3))", "order": 110},
		map[string]any{"type": "snippet", "snippetId": snip["_id"], "order": 120},
		map[string]any{"type": "hero", "headline": "No picture", "subline": "Just words", "order": 130})
	page := e.page(map[string]any{"slug": "all-blocks", "title": "All blocks", "blocks": list})
	e.publish(page["_id"].(string))

	errs := &consoleErrors{}
	require.NoError(t, chromedp.Listen(ctx, errs.listen))
	_, err := chromedp.Call(ctx, log.Enable, cdp.Empty{})
	require.NoError(t, err)
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(e.p.URL+"/site/en/all-blocks"), chromedp.WaitVisible(chromedp.CSS("main"))))
	title, err := chromedp.Run(ctx, chromedp.Title())
	require.NoError(t, err)
	scripts, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.scripts.length`))
	require.NoError(t, err)
	blocks, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('main .block').length`))
	require.NoError(t, err)
	frames, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('iframe')].map(f => f.src)`))
	require.NoError(t, err)
	assert.Equal(t, "All blocks", title)
	assert.Zero(t, scripts, "no script element")
	assert.GreaterOrEqual(t, blocks, 12, "every block is on the page")
	require.Len(t, frames, 1)
	assert.True(t, strings.HasPrefix(frames[0], "https://www.youtube-nocookie.com/embed/"), frames[0])
	assert.Empty(t, errs.list(), "console errors")

	// A hero without a picture is as tall as its words: no empty band
	// (issue 30, item 11); one with a picture keeps its height.
	heroes, err := chromedp.Run(ctx, chromedp.Evaluate[[][]float64](`[...document.querySelectorAll('.block-hero')].map(s =>
		[s.querySelector('.hero-image') ? 1 : 0, s.getBoundingClientRect().height, s.querySelector('.hero-text').getBoundingClientRect().height])`))
	require.NoError(t, err)
	require.Len(t, heroes, 2)
	for _, h := range heroes {
		if h[0] == 1 {
			assert.GreaterOrEqual(t, h[1], 320.0, "a hero with a picture keeps its height: %v", h)
		} else {
			assert.LessOrEqual(t, h[1]-h[2], 66.0, "a hero without a picture leaves no band, only the block's padding: %v", h)
		}
	}
}
