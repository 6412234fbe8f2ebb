package render

import (
	"strconv"
	"strings"
	"unicode"

	"golang.org/x/net/html"
	"golang.org/x/text/unicode/norm"
)

// maxSlug bounds an id's length in characters, so a long heading does not
// make a long URL fragment.
const maxSlug = 80

// headingIDs is step 5: every h1 to h6 gets the slug of its text as id,
// made unique in document order with -2, -3, ...; the same body always gets
// the same ids.
func headingIDs(root *html.Node) []Heading {
	var toc []Heading
	taken := map[string]int{}
	walk(root, func(n *html.Node) bool {
		if !isHeading(n) {
			return true
		}
		text := collapse(textOf(n))
		id := UniqueID(slug(text), taken)
		setAttr(n, "id", id)
		toc = append(toc, Heading{Level: int(n.Data[1] - '0'), ID: id, Text: text})
		return false
	})
	return toc
}

// UniqueID returns id, or id-2, id-3, ... if it is taken, and takes it.
// taken holds, for each id handed out, the suffix to try next for it, so
// a page of many equal headings costs linear time, not quadratic.
func UniqueID(id string, taken map[string]int) string {
	candidate, i := id, max(taken[id], 2)
	for ; taken[candidate] > 0; i++ {
		candidate = id + "-" + strconv.Itoa(i)
	}
	taken[id] = max(taken[id], i)
	taken[candidate] = max(taken[candidate], 2)
	return candidate
}

// slug is text in lower case without diacritics, its runs of letters and
// digits joined by "-"; "section" when it has none.
func slug(text string) string {
	var b strings.Builder
	pending, n := false, 0
	for _, r := range norm.NFD.String(text) {
		switch {
		case unicode.IsMark(r):
			continue
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if pending && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(unicode.ToLower(r))
			pending = false
			n++
		default:
			pending = true
		}
		if n >= maxSlug {
			break
		}
	}
	if b.Len() == 0 {
		return "section"
	}
	return norm.NFC.String(b.String())
}
