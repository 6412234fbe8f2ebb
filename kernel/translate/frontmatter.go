package translate

import (
	"context"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"
)

// splitFrontMatter cuts a leading YAML front matter (from a first line
// "---" to the next line "---" or "...", both included) off body.
func splitFrontMatter(body string) (front, rest string) {
	first, after, ok := strings.Cut(body, "\n")
	if !ok || strings.TrimRight(first, " \t\r") != "---" {
		return "", body
	}
	pos := len(first) + 1
	for line := range strings.Lines(after) {
		pos += len(line)
		if l := strings.TrimRight(line, " \t\r\n"); l == "---" || l == "..." {
			return body[:pos], body[pos:]
		}
	}
	return "", body // never closed: a thematic break, not front matter
}

// titleLine is the front matter's top-level title and its value.
var titleLine = regexp.MustCompile(`(?m)^title:[ \t]*(.*?)[ \t\r]*$`)

// translateTitle translates the title's value, the one field of the
// front matter that is prose; the other lines are copied as they are.
func translateTitle(ctx context.Context, p Provider, front, source, target string) (string, error) {
	m := titleLine.FindStringSubmatchIndex(front)
	if m == nil {
		return front, nil
	}
	var title string
	if yaml.Unmarshal([]byte(front[m[2]:m[3]]), &title) != nil || strings.TrimSpace(title) == "" {
		return front, nil // a block scalar, a list, or nothing to translate
	}
	got, err := p.Translate(ctx, []string{title}, source, target, FormatText)
	if err != nil {
		return "", err
	}
	if len(got) != 1 {
		return "", errTranslations(1, len(got))
	}
	return front[:m[2]] + yamlScalar(got[0]) + front[m[3]:], nil
}

// yamlScalar is s as a one-line YAML scalar, quoted where YAML needs it.
func yamlScalar(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	out, err := yaml.Marshal(s)
	if err != nil {
		return `""`
	}
	return strings.TrimSuffix(string(out), "\n")
}
