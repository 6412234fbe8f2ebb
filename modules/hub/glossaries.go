package hub

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"platform/kernel/query"
	"platform/kernel/resource"
	"platform/kernel/store"
	"platform/modules/hub/search"
	"platform/modules/hub/wiki"
	"platform/workflows/contract"
)

// maxAliases bounds an entry's aliases.
const maxAliases = 20

// Glossaries declares /glossaries. Terms and aliases are unique per
// customer, case-insensitively: keys holds them folded, termKey makes the
// terms' uniqueness an index. A change re-renders the pages that use the
// words. Rights: hub.glossaries.{view|create|edit|delete}.
func Glossaries(d Deps) *resource.Resource {
	str := func(n int) *resource.Field { return &resource.Field{Type: resource.TString, MaxLen: n} }
	return &resource.Resource{
		Plural: wiki.Glossaries, Title: "glossary entry",
		Fields: []resource.Field{
			{Name: "term", Type: resource.TString, Required: true, MaxLen: 200, Filter: true, Sort: true},
			{Name: "definition", Type: resource.TString, Required: true, Format: resource.FMarkdown, MaxLen: 20000, Description: "Markdown"},
			{Name: "aliases", Type: resource.TArray, Items: str(200), Filter: true, Description: fmt.Sprintf("other words for the term, linked like it (at most %d)", maxAliases)},
			{Name: "termKey", Type: resource.TString, ReadOnly: true, Unique: true, MaxLen: 200, Description: "the term folded to lower case: unique per customer"},
			{Name: "keys", Type: resource.TArray, ReadOnly: true, Items: str(200), Filter: true, Description: "the term and aliases folded to lower case"},
		},
		DefaultSort: []store.SortField{{Field: "termKey"}},
		Hooks: resource.Hooks{BeforeWrite: checkGlossary, AfterWrite: d.glossaryWritten,
			AfterDelete: d.glossaryDeleted},
	}
}

// checkGlossary folds the keys and refuses a term or alias another entry
// has (409) or this one repeats (422).
func checkGlossary(ctx context.Context, w *resource.Write) error {
	term := wiki.FoldTerm(str(w.New["term"]))
	if term == "" {
		return resource.InvalidField("term", "the term has no letters or digits")
	}
	keys, err := aliasKeys(term, store.Strings(w.New["aliases"]))
	if err != nil {
		return err
	}
	w.New["termKey"], w.New["keys"] = term, store.List(keys)
	return refuseTakenKeys(ctx, w, keys)
}

func aliasKeys(term string, aliases []string) ([]string, error) {
	if len(aliases) > maxAliases {
		return nil, resource.InvalidField("aliases", "at most %d aliases", maxAliases)
	}
	keys := []string{term}
	for i, a := range aliases {
		k := wiki.FoldTerm(a)
		if k == "" || slices.Contains(keys, k) {
			return nil, resource.InvalidField(fmt.Sprintf("aliases.%d", i), "%q is empty or repeats the term or another alias", a)
		}
		keys = append(keys, k)
	}
	return keys, nil
}

func refuseTakenKeys(ctx context.Context, w *resource.Write, keys []string) error {
	where := query.Field{Path: "keys", Conds: []query.Cond{query.In{Values: store.List(keys)}}}
	docs, err := w.Service.Store.Collection(wiki.Glossaries).Find(ctx, store.FindOptions{Filter: notSelf(where, w.Old), Limit: 1, Fields: []string{"term", "keys"}})
	if err != nil || len(docs) == 0 {
		return err
	}
	taken := store.Strings(docs[0]["keys"])
	for i, k := range keys {
		if slices.Contains(taken, k) {
			return resource.Conflict(keyField(i), "the glossary entry %q has the term or alias %q already", str(docs[0]["term"]), k)
		}
	}
	return nil
}

// notSelf narrows where to records other than old (none on create).
func notSelf(where query.Expr, old store.Doc) query.Expr {
	if old == nil {
		return where
	}
	return query.AllOf(where, query.Field{Path: "_id", Conds: []query.Cond{query.Compare{Op: query.OpNe, Value: idOf(old)}}})
}

func keyField(i int) string {
	if i == 0 {
		return "term"
	}
	return fmt.Sprintf("aliases.%d", i-1)
}

// glossaryWritten indexes the entry and re-renders the pages that use its
// words, before and after the change.
func (d Deps) glossaryWritten(ctx context.Context, _ *resource.Service, saved, old store.Doc) error {
	if d.Search != nil {
		doc := search.Doc{Type: search.TypeGlossary, ID: idOf(saved), Published: true,
			Title: strings.Join(append([]string{str(saved["term"])}, store.Strings(saved["aliases"])...), ", "),
			Text:  wiki.MarkdownText(str(saved["definition"]))}
		if err := d.Search.Put(ctx, doc); err != nil {
			return err
		}
	}
	return d.renderAffected(ctx, contract.AffectedInput{Words: glossaryWords(saved, old)})
}

func (d Deps) glossaryDeleted(ctx context.Context, s *resource.Service, old store.Doc) error {
	if err := d.unindex(search.TypeGlossary)(ctx, s, old); err != nil {
		return err
	}
	return d.renderAffected(ctx, contract.AffectedInput{Words: glossaryWords(old, nil)})
}

// glossaryWords are the term and aliases of the entries, each once.
func glossaryWords(entries ...store.Doc) []string {
	var out []string
	for _, e := range entries {
		for _, w := range append([]string{str(e["term"])}, store.Strings(e["aliases"])...) {
			if w != "" && !slices.Contains(out, w) {
				out = append(out, w)
			}
		}
	}
	return out
}
