package pages

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"platform/kernel/query"
	"platform/kernel/store"
)

// SnippetRefs are the snippet ids the blocks reference directly.
func SnippetRefs(list []any) []string {
	seen := map[string]bool{}
	var out []string
	for _, b := range list {
		d, _ := b.(store.Doc)
		if id := str(d["snippetId"]); d["type"] == "snippet" && id != "" && !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// LoadSnippets loads the snippets the blocks use, and those they use in
// turn, down to MaxSnippetDepth: snippet id → its blocks. A missing one
// is left out (the render reports it).
func LoadSnippets(ctx context.Context, s store.Store, list []any) (map[string][]any, error) {
	out := map[string][]any{}
	next := SnippetRefs(list)
	for depth := 0; len(next) > 0 && depth < MaxSnippetDepth; depth++ {
		docs, err := s.Collection(Snippets).Find(ctx, store.FindOptions{Fields: []string{"blocks"},
			Filter: query.Field{Path: "_id", Conds: []query.Cond{query.In{Values: store.List(next)}}}})
		if err != nil {
			return nil, err
		}
		next = nil
		for _, d := range docs {
			blocks, _ := d["blocks"].([]any)
			out[str(d["_id"])] = blocks
			next = append(next, unseen(SnippetRefs(blocks), out)...)
		}
	}
	return out, nil
}

func unseen(ids []string, seen map[string][]any) []string {
	var out []string
	for _, id := range ids {
		if _, ok := seen[id]; !ok {
			out = append(out, id)
		}
	}
	return out
}

// CheckSnippetCycle refuses blocks for the snippet self (empty for a
// page) that reference a missing snippet, or that would make self
// include itself, directly or through others, or nest deeper than
// MaxSnippetDepth. It names the block at fault.
func CheckSnippetCycle(ctx context.Context, s store.Store, self string, list []any) (string, error) {
	loaded, err := LoadSnippets(ctx, s, list)
	if err != nil {
		return "", err
	}
	for _, id := range SnippetRefs(list) {
		if _, ok := loaded[id]; !ok {
			return id, fmt.Errorf("snippet %s does not exist", id)
		}
		if self != "" && reaches(loaded, id, self, 0) {
			return id, fmt.Errorf("snippet %s includes this snippet: a snippet cannot include itself, directly or through others", id)
		}
		if depthOf(loaded, id, 1) > MaxSnippetDepth {
			return id, fmt.Errorf("snippet %s nests snippets deeper than %d levels", id, MaxSnippetDepth)
		}
	}
	return "", nil
}

// reaches reports whether snippet from includes target at any depth.
func reaches(loaded map[string][]any, from, target string, depth int) bool {
	if from == target {
		return true
	}
	if depth > MaxSnippetDepth {
		return false
	}
	for _, id := range SnippetRefs(loaded[from]) {
		if reaches(loaded, id, target, depth+1) {
			return true
		}
	}
	return false
}

func depthOf(loaded map[string][]any, id string, depth int) int {
	deepest := depth
	if depth > MaxSnippetDepth {
		return depth
	}
	for _, child := range SnippetRefs(loaded[id]) {
		deepest = max(deepest, depthOf(loaded, child, depth+1))
	}
	return deepest
}

func keys(m map[string][]any) []string { return slices.Sorted(maps.Keys(m)) }
