package wiki

import (
	"strings"

	"platform/kernel/render"
	"platform/kernel/store"
)

func splitTarget(t string) (kb, slug string, ok bool) {
	kb, slug, ok = strings.Cut(t, "/")
	return kb, slug, ok && kb != "" && slug != ""
}

func tocDocs(toc []render.Heading) []any {
	out := make([]any, len(toc))
	for i, h := range toc {
		out[i] = store.Doc{"level": int64(h.Level), "id": h.ID, "text": h.Text}
	}
	return out
}

// termNames are the terms of the linked glossary entries ids.
func termNames(glossary []render.Term, ids []string) []string {
	byID := make(map[string]string, len(glossary))
	for _, t := range glossary {
		byID[t.ID] = t.Term
	}
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		out = append(out, byID[id])
	}
	return out
}

func merge(doc, set store.Doc) store.Doc {
	out := make(store.Doc, len(doc)+len(set))
	for k, v := range doc {
		out[k] = v
	}
	for k, v := range set {
		out[k] = v
	}
	return out
}
