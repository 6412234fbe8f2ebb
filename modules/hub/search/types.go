package search

import (
	"errors"
	"time"
)

// Document types.
const (
	TypeWikiPage = "wikipage"
	TypeFAQ      = "faq"
	TypeGlossary = "glossary"
)

// typeNames are the types by their code in the in-memory index.
var typeNames = [...]string{TypeWikiPage, TypeFAQ, TypeGlossary}

func typeCode(t string) (uint8, bool) {
	for i, n := range typeNames {
		if n == t {
			return uint8(i), true
		}
	}
	return 0, false
}

// Bounds of what is indexed and asked.
const (
	MaxText       = 200 << 10 // bytes of Text kept
	maxTitle      = 2 << 10   // bytes of Title kept
	MaxQueryChars = 200
	MaxQueryTerms = 16
	DefaultLimit  = 10
	MaxLimit      = 50
)

var (
	// ErrEmptyQuery: Query.Q is blank (the caller answers 422).
	ErrEmptyQuery = errors.New("search: empty query")
	// ErrInvalidDoc: a Doc without a known Type or an ID.
	ErrInvalidDoc = errors.New("search: invalid document")
)

// Doc is one indexed record.
type Doc struct {
	Type      string   // TypeWikiPage, TypeFAQ or TypeGlossary
	ID        string   // the record's _id
	Title     string   // page title, FAQ question, glossary term and aliases
	Text      string   // plain text of the body; cut at MaxText
	KB        string   // knowledge-base slug (pages)
	Parent    string   // parent page slug (pages)
	Published bool     // pages: published; FAQs and glossaries: true
	Terms     []string // glossary terms the page mentions
}

// Query is one search.
type Query struct {
	Q     string
	KB    string // only documents of that knowledge base ("" : any)
	Limit int    // 1..MaxLimit, 0: DefaultLimit
	// Types the caller may view; none means nothing is visible.
	Types []string
	// Unpublished includes unpublished pages (hub.wikipages.edit).
	Unpublished bool
}

// Hit is one result, best first.
type Hit struct {
	Type, ID, Title string
	Score           float64
	// Snippets are HTML: the text escaped, matches in <mark>.
	Snippets   []string
	KB, Parent string
	Terms      []string
}

// Options tune an Index; zero values take the defaults.
type Options struct {
	// CacheBytes bounds the approximate memory of all customers' indexes.
	CacheBytes int64
	// GapGrace is how long a missing sequence number is waited for.
	GapGrace time.Duration
	// RebuildEvery is how often a customer's index is rebuilt from the store.
	RebuildEvery time.Duration
	// Now is the clock (tests move it).
	Now func() time.Time
	// TextsInMemory keeps every document's text in the cache for snippets
	// instead of reading the hits' texts from the store on each search. On
	// by itself on FerretDB, which scans the whole collection for every
	// filter it is sent (it pushes down only a bare {_id: value}, and the
	// store always adds the customer): one read by id costs as much as
	// reading every document. It costs the texts' size in memory.
	TextsInMemory bool
}

func (o Options) withDefaults() Options {
	if o.CacheBytes <= 0 {
		o.CacheBytes = 512 << 20
	}
	if o.GapGrace <= 0 {
		o.GapGrace = time.Minute
	}
	if o.RebuildEvery <= 0 {
		o.RebuildEvery = 10 * time.Minute
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o
}
