package wiki

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"gopkg.in/yaml.v3"
)

// FrontMatterFields are the page fields YAML front matter may set; a field
// the request names explicitly wins over it.
var FrontMatterFields = []string{"kbslug", "title", "slug", "tags", "parentSlug", "order"}

// maxFrontMatter bounds the YAML a page may open with.
const maxFrontMatter = 16 << 10

// SplitFrontMatter separates a body's leading YAML front matter (between
// a first line "---" and the next line "---" or "...") from the content.
// A body without it answers nil and the body unchanged.
func SplitFrontMatter(body string) (map[string]any, string, error) {
	head, rest, ok := cutFrontMatter(body)
	if !ok {
		return nil, body, nil
	}
	if len(head) > maxFrontMatter {
		return nil, body, fmt.Errorf("the front matter is longer than %d bytes", maxFrontMatter)
	}
	meta := map[string]any{}
	dec := yaml.NewDecoder(bytes.NewReader([]byte(head)))
	if err := dec.Decode(&meta); err != nil && !errors.Is(err, io.EOF) {
		return nil, body, fmt.Errorf("the front matter is not valid YAML: %s", strings.TrimPrefix(err.Error(), "yaml: "))
	}
	return meta, rest, nil
}

// cutFrontMatter finds the front matter block; line ends may be \r\n.
func cutFrontMatter(body string) (head, rest string, ok bool) {
	first, after, found := strings.Cut(body, "\n")
	if !found || strings.TrimRight(first, "\r ") != "---" {
		return "", body, false
	}
	for off := 0; off < len(after); {
		line, next, _ := strings.Cut(after[off:], "\n")
		if t := strings.TrimRight(line, "\r "); t == "---" || t == "..." {
			return after[:off], next, true
		}
		if next == "" && !strings.Contains(after[off:], "\n") {
			break
		}
		off += len(line) + 1
	}
	return "", body, false
}

// Content is the part of a body the renderer turns into HTML: the body
// without its front matter (a body whose front matter does not parse is
// refused when saved, so the split cannot fail for a stored page).
func Content(body string) string {
	_, rest, err := SplitFrontMatter(body)
	if err != nil {
		return body
	}
	return rest
}
