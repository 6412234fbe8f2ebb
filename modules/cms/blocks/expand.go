package blocks

import (
	"sort"

	"platform/kernel/store"
)

// maxDepth bounds how deeply snippets may place snippets: deep enough for
// any sensible site (a footer holding a newsletter box), and it ends a
// chain that a visited set alone would let grow through many snippets.
const maxDepth = 8

// node is a block the page shows, with a snippet block's blocks expanded.
type node struct {
	doc      map[string]any
	children []node
}

// expansion is the page's blocks as shown, and the snippets it met.
type expansion struct {
	nodes []node
	// used: the snippets placed; missing: those absent, cyclic or too deep.
	used, missing map[string]bool
}

// expand orders the page's visible blocks and resolves its snippets.
func expand(blocks []any, snippets map[string][]any) expansion {
	e := &expander{snippets: snippets, open: map[string]bool{},
		x: expansion{used: map[string]bool{}, missing: map[string]bool{}}}
	e.x.nodes = e.list(blocks, 0)
	return e.x
}

type expander struct {
	snippets map[string][]any
	open     map[string]bool // the snippets being expanded: one met again is a cycle
	x        expansion
}

func (e *expander) list(blocks []any, depth int) []node {
	docs := shown(blocks)
	nodes := make([]node, len(docs))
	for i, doc := range docs {
		nodes[i].doc = doc
		if doc[tag] == TypeSnippet {
			nodes[i].children = e.snippet(doc, depth)
		}
	}
	return nodes
}

// snippet expands a snippet block; one that is missing, encloses itself or
// lies too deep shows nothing and is reported.
func (e *expander) snippet(doc map[string]any, depth int) []node {
	id, _ := doc["snippetId"].(string)
	blocks, ok := e.snippets[id]
	if !ok || e.open[id] || depth >= maxDepth {
		e.x.missing[id] = true
		return nil
	}
	e.x.used[id] = true
	e.open[id] = true
	defer delete(e.open, id)
	return e.list(blocks, depth+1)
}

// shown are the visible blocks of a list, by order and then list order.
func shown(blocks []any) []map[string]any {
	var docs []map[string]any
	for _, b := range blocks {
		doc, ok := b.(map[string]any)
		if ok && doc["visible"] != false {
			docs = append(docs, doc)
		}
	}
	sort.SliceStable(docs, func(i, j int) bool {
		return store.Int(docs[i]["order"]) < store.Int(docs[j]["order"])
	})
	return docs
}
