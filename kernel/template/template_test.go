package template

import (
	"testing"

	"github.com/stretchr/testify/require"
)

var scope = map[string]any{
	"event": map[string]any{"name": "consumers.created", "data": map[string]any{"email": "ada@example.com", "tags": []any{"a", "b"}, "n": 3.0}},
	"steps": map[string]any{"shape": map[string]any{"output": map[string]any{"total": 12.5, "ok": true}}},
}

func TestRender(t *testing.T) {
	cases := []struct {
		in   any
		want any
	}{
		{"plain", "plain"},
		{"{{event.data.email}}", "ada@example.com"},
		{"{{ event.data.n }}", 3.0},
		{"{{steps.shape.output}}", map[string]any{"total": 12.5, "ok": true}},
		{"Hi {{event.data.email}} ({{event.data.n}})", "Hi ada@example.com (3)"},
		{"tags: {{event.data.tags}}", `tags: ["a","b"]`},
		{"{{event.data.tags.1}}", "b"},
		{"{{event.data.missing}}", nil},
		{"[{{event.data.missing}}]", "[]"},
		{"{{event.data.tags.9}}", nil},
		{map[string]any{"to": "{{event.data.email}}", "list": []any{"{{steps.shape.output.ok}}"}}, map[string]any{"to": "ada@example.com", "list": []any{true}}},
		{map[string]string{"X": "{{steps.shape.output.total}}"}, map[string]string{"X": "12.5"}},
		{42.0, 42.0},
	}
	for _, c := range cases {
		require.Equal(t, c.want, Render(c.in, scope), "%v", c.in)
	}
}

func TestRefs(t *testing.T) {
	refs, err := Refs(map[string]any{"a": "{{event.data.x}} and {{ steps.b.output.y }}", "b": []any{"{{secrets.smtp.password}}"}})
	require.NoError(t, err)
	var paths []string
	for _, r := range refs {
		paths = append(paths, r.Path)
	}
	require.ElementsMatch(t, []string{"event.data.x", "steps.b.output.y", "secrets.smtp.password"}, paths)
	_, err = Refs("{{ event.data[0] }}")
	require.Error(t, err, "only dotted paths")
	_, err = Refs("{{ 1 + 1 }}")
	require.Error(t, err)
}
