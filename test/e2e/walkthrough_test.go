package e2e

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// walkthroughFence opens a block of commands that the docs promise work
// as pasted into a shell beside `platform dev` (docs/README: "Try it").
const walkthroughFence = "```sh walkthrough"

// walkthroughDocs must each start with a walk-through: the README and the
// guide of every module (issue 30, item 8).
var walkthroughDocs = []string{"README.md", "docs/crm.md", "docs/pipelines.md", "docs/webhooks.md", "docs/marketing.md",
	"docs/newsletters.md", "docs/tracking.md", "docs/hub.md", "docs/cms.md", "docs/config.md", "docs/config-catalog.md",
	"docs/config-computing.md", "docs/config-credentials.md", "docs/config-flags.md", "docs/config-keys.md",
	"docs/config-notifications.md", "docs/ads.md", "docs/aggregation.md", "docs/notifier.md", "docs/console.md", "docs/oauth.md"}

// walkthrough is the commands of a doc's walk-through blocks, in order.
func walkthrough(t *testing.T, path string) string {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var b strings.Builder
	in, blocks, firstSection := false, 0, ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == walkthroughFence:
			in = true
			blocks++
		case in && strings.HasPrefix(line, "```"):
			in = false
		case in:
			b.WriteString(line + "\n")
		case firstSection == "" && strings.HasPrefix(line, "## "):
			firstSection = line
		}
	}
	require.NoError(t, sc.Err())
	require.NotZero(t, blocks, "%s has no %q block", path, walkthroughFence)
	if filepath.Base(path) != "README.md" {
		require.Equal(t, "## Try it", firstSection, "%s starts with its walk-through", path)
	}
	return b.String()
}

// TestDocWalkthroughs runs the walk-through of the README and of every
// module's guide against one fresh `platform dev`, as a reader pastes
// them: in a folder holding bin/platform, with bash, curl and jq (and
// python3 for the notifier's WebSocket), each
// doc's blocks in one shell so that variables carry from block to
// block. Every command must succeed (curl fails on an HTTP error), so
// the docs cannot rot unnoticed.
func TestDocWalkthroughs(t *testing.T) {
	t.Parallel()
	for _, tool := range []string{"bash", "curl", "jq", "python3"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("the walk-throughs need %s (make browser installs it): %v", tool, err)
		}
	}
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	scripts := map[string]string{}
	for _, doc := range walkthroughDocs {
		scripts[doc] = walkthrough(t, filepath.Join(root, doc))
	}

	d := newDev(t)
	// The docs say localhost:8080; this platform listens elsewhere.
	addr := fmt.Sprintf("localhost:%d", d.ports["http"])
	d.extra = []string{"PLATFORM_GATEWAY_URL=http://" + addr, "PLATFORM_DOMAIN=" + addr}
	d.start()
	dir := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(dir, "bin"), 0o755))
	require.NoError(t, os.Symlink(d.bin, filepath.Join(dir, "bin", "platform")))

	names := make([]string, 0, len(scripts))
	for n := range scripts {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		script := strings.ReplaceAll(scripts[name], "localhost:8080", addr)
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			runWalkthrough(t, d, dir, script)
		})
	}
}

// walkthroughPrelude makes the shell stop at the first failing command
// and name it; curl fails on HTTP errors and keeps its answer for the log.
const walkthroughPrelude = `set -euo pipefail
curl() { command curl --silent --show-error --fail-with-body "$@"; }
trap 'echo "walk-through: this command failed: $BASH_COMMAND" >&2' ERR
PS4='+ '
set -x
`

func runWalkthrough(t *testing.T, d *devProcess, dir, script string) {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", walkthroughPrelude+script)
	cmd.Dir = dir
	cmd.Env = d.env()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the walk-through failed (%v):\n%s", err, out)
	}
}
