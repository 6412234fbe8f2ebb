package render

import (
	"regexp"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// A cross-link is wiki:<kb>/<slug>, optionally with #fragment. Knowledge
// base and page slugs are lower-case letters, digits, "-" and "_".
var (
	target   = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,99}/[a-z0-9][a-z0-9_-]{0,99}$`)
	escaping = regexp.MustCompile(`\\([!-/:-@\[-` + "`" + `{-~])`)
)

// CrossLinks lists the "kb/slug" targets a body links to, sorted and
// unique, for the caller to resolve before rendering. It scans the text
// rather than rendering it, so it is cheap and may list a target that only
// a code block mentions; it never misses one Render resolves, because it
// also reads the body with entities and Markdown escapes undone.
func CrossLinks(body, format string) []string {
	found := map[string]bool{}
	for _, s := range readings(body, format) {
		for _, m := range mentions(s) {
			if target.MatchString(m) {
				found[m] = true
			}
		}
	}
	return sortedKeys(found)
}

// mentions are the runs of target characters that follow "wiki:" (in any
// case) in s. A scan for ":" is several times faster than a
// case-insensitive regular expression over the whole body.
func mentions(s string) []string {
	var out []string
	for i := 0; ; {
		j := strings.IndexByte(s[i:], ':')
		if j < 0 {
			return out
		}
		colon := i + j
		i = colon + 1
		if colon >= 4 && strings.EqualFold(s[colon-4:colon], "wiki") {
			end := i
			for end < len(s) && isTargetByte(s[end]) {
				end++
			}
			out = append(out, s[i:end])
		}
	}
}

// isTargetByte tells the bytes a target may hold, in either case so a
// capitalised target is seen (and found malformed) as Render sees it.
func isTargetByte(b byte) bool {
	return 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9' ||
		b == '_' || b == '-' || b == '/'
}

// readings are the forms of a body a link or term may be written in: as
// is, with character references decoded, and (Markdown) without
// backslash escapes.
func readings(body, format string) []string {
	out := []string{body}
	if strings.Contains(body, "&") {
		out = append(out, html.UnescapeString(body))
	}
	if format == Markdown && strings.Contains(body, `\`) {
		for _, s := range out {
			out = append(out, escaping.ReplaceAllString(s, "$1"))
		}
	}
	return out
}

// resolveLinks is step 6: wiki: links point to their page's URL; a
// dangling or malformed one is replaced by its text. It returns the broken
// ones. wiki: URLs on anything but a link (an image's src) are dropped.
func resolveLinks(root *html.Node, links map[string]string) []string {
	broken := map[string]bool{}
	for _, n := range elements(root) {
		if n.DataAtom == atom.A {
			resolve(n, links, broken)
		} else {
			dropWikiURLs(n)
		}
	}
	return sortedKeys(broken)
}

// elements lists the elements below root, so a step may change the tree
// while it goes through them.
func elements(root *html.Node) []*html.Node {
	var all []*html.Node
	walk(root, func(n *html.Node) bool {
		if n.Type == html.ElementNode && n != root {
			all = append(all, n)
		}
		return true
	})
	return all
}

// resolve handles one link.
func resolve(a *html.Node, links map[string]string, broken map[string]bool) {
	href, _ := attr(a, "href")
	rest, ok := wikiRest(href)
	if !ok {
		return
	}
	path, fragment, hasFragment := strings.Cut(rest, "#")
	url, found := links[path]
	switch {
	case !target.MatchString(path):
		broken[strings.TrimSpace(href)] = true
	case !found || !safeURL(url):
		broken[path] = true
	default:
		if hasFragment {
			url += "#" + fragment
		}
		setAttr(a, "href", url)
		return
	}
	unwrap(a)
}

// wikiRest is what follows "wiki:" in a URL, and whether it is a wiki: URL
// (the scheme is case-insensitive).
func wikiRest(u string) (string, bool) {
	u = strings.TrimSpace(u)
	if len(u) < 5 || !strings.EqualFold(u[:5], "wiki:") {
		return "", false
	}
	return u[5:], true
}

// dropWikiURLs removes the URL attributes of a non-link that name a wiki
// page: only links are resolved.
func dropWikiURLs(n *html.Node) {
	for _, key := range []string{"src", "cite", "href"} {
		if v, ok := attr(n, key); ok {
			if _, wiki := wikiRest(v); wiki {
				removeAttr(n, key)
			}
		}
	}
}
