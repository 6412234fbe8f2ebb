package blocks

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"platform/kernel/store"
)

func sid(n int) string { return fmt.Sprintf("%024x", n) }

func place(n int) store.Doc { return store.Doc{"type": "snippet", "snippetId": sid(n)} }

func label(s string) store.Doc {
	return store.Doc{"type": "cta", "label": s, "url": "https://a.test/" + s}
}

// labels are the texts of the page's links, in page order.
func labels(t *testing.T, in Input) ([]string, Output) {
	t.Helper()
	out, doc := renderPage(t, in)
	var got []string
	for _, a := range elements(doc, "a") {
		got = append(got, textOf(a))
	}
	return got, out
}

func TestSnippetsExpand(t *testing.T) {
	cases := []struct {
		name     string
		page     []any
		snippets map[string][]any
		labels   []string
		missing  []string
	}{
		{"nested", []any{place(1), label("page")},
			map[string][]any{sid(1): {label("one"), place(2)}, sid(2): {label("two")}},
			[]string{"one", "two", "page"}, nil},
		{"twice on a page", []any{place(1), place(1)},
			map[string][]any{sid(1): {label("one")}},
			[]string{"one", "one"}, nil},
		{"missing", []any{place(9), label("page")}, nil,
			[]string{"page"}, []string{sid(9)}},
		{"encloses itself", []any{place(1)},
			map[string][]any{sid(1): {label("one"), place(1)}},
			[]string{"one"}, []string{sid(1)}},
		{"a cycle of two", []any{place(1)},
			map[string][]any{sid(1): {label("one"), place(2)}, sid(2): {label("two"), place(1)}},
			[]string{"one", "two"}, []string{sid(1)}},
		{"ordered and visible", []any{place(1)},
			map[string][]any{sid(1): {store.Doc{"type": "cta", "label": "b", "url": "/b", "order": int64(2)},
				store.Doc{"type": "cta", "label": "a", "url": "/a", "order": int64(1)},
				store.Doc{"type": "cta", "label": "hidden", "url": "/h", "visible": false}}},
			[]string{"a", "b"}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, out := labels(t, Input{Blocks: c.page, Snippets: c.snippets})
			assert.Equal(t, c.labels, got)
			assert.Equal(t, c.missing, out.MissingSnippets)
		})
	}
}

func TestSnippetDepthIsBounded(t *testing.T) {
	chain := map[string][]any{}
	for i := range 20 {
		chain[sid(i)] = []any{label(fmt.Sprint(i)), place(i + 1)}
	}
	got, out := labels(t, Input{Blocks: []any{place(0)}, Snippets: chain})
	require.Len(t, got, maxDepth)
	assert.Equal(t, []string{sid(maxDepth)}, out.MissingSnippets)
}

func TestAMissingSnippetLeavesNoTrace(t *testing.T) {
	out, err := Render(Input{Blocks: []any{place(1), place(2)}, Snippets: map[string][]any{sid(2): {}}})
	require.NoError(t, err)
	assert.NotContains(t, out.HTML, "block-snippet")
	assert.Equal(t, []string{sid(1)}, out.MissingSnippets, "an empty snippet is not missing")
}
