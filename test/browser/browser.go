// Package browser starts the headless Chromium of the browser tests
// (make test installs Debian's chromium).
package browser

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// Path finds Debian's chromium. Outside CI a machine without it skips; in
// CI a missing browser fails.
func Path(t testing.TB) string {
	for _, p := range []string{os.Getenv("CHROMIUM"), "/usr/bin/chromium"} {
		if p != "" {
			if _, err := os.Stat(p); err == nil {
				return p
			}
		}
	}
	if p, err := exec.LookPath("chromium"); err == nil {
		return p
	}
	if os.Getenv("CI") != "" {
		t.Fatal("chromium is missing: make test installs it (apt-get install -y chromium)")
	}
	t.Skip("chromium not installed; make test installs it")
	return ""
}

// New starts a headless Chromium for the test, stopped at its end, and
// answers its chromedp context (bounded to 90 seconds).
func New(t testing.TB) context.Context {
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(Path(t)), chromedp.Flag("headless", true), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck,
		chromedp.UserDataDir(t.TempDir()),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	ctx, cancelTimeout := context.WithTimeout(ctx, 90*time.Second)
	t.Cleanup(func() { cancelTimeout(); cancel(); cancelAlloc() })
	return ctx
}
