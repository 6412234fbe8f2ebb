package search

import (
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"platform/kernel/store"
)

// Collections: the indexed documents and the per-customer write counter.
const (
	docsCollection = "searchdocs"
	seqCollection  = "searchseq"
)

// Fields of a stored search document.
const (
	fType      = "type"
	fRef       = "ref"
	fKB        = "kb"
	fParent    = "parent"
	fPublished = "published"
	fTitle     = "title"
	fText      = "text"
	fTerms     = "terms"
	fTitleFreq = "tf" // "term:count term:count ..." of the title
	fTextFreq  = "bf" // the same for the text
	fTitleLen  = "tl" // tokens in the title
	fTextLen   = "bl" // tokens in the text
	fSeq       = "seq"
	fDeleted   = "deleted"
	fAt        = "at"
)

// metaFields is all but the text: what an in-memory index is built from
// (with fText too when it holds the texts, see Options.TextsInMemory).
var metaFields = []string{fType, fRef, fKB, fParent, fPublished, fTitle, fTerms,
	fTitleFreq, fTextFreq, fTitleLen, fTextLen, fSeq, fDeleted, fAt}

var allFields = append(slices.Clone(metaFields), fText)

// contentFields are unset by a tombstone.
var contentFields = []string{fKB, fParent, fPublished, fTitle, fText, fTerms,
	fTitleFreq, fTextFreq, fTitleLen, fTextLen}

// docKey is a search document's _id. An _id is unique across customers
// (as MongoDB's is), so it starts with the customer; the counter's _id is
// the customer alone.
func docKey(customer, typ, id string) string { return customer + ":" + typ + ":" + id }

// encode is the stored form of d (without seq). Frequencies are one
// string per field: compact, and tokens (letters and digits) never hold
// the separators, nor the '.' or '$' that MongoDB refuses in keys.
func encode(d Doc, now time.Time) store.Doc {
	tf, tl := freqs(d.Title)
	bf, bl := freqs(d.Text)
	return store.Doc{fType: d.Type, fRef: d.ID, fKB: d.KB, fParent: d.Parent,
		fPublished: d.Published, fTitle: d.Title, fText: d.Text, fTerms: anyStrings(d.Terms),
		fTitleFreq: encodeFreq(tf), fTextFreq: encodeFreq(bf),
		fTitleLen: int64(tl), fTextLen: int64(bl), fDeleted: false, fAt: now}
}

func anyStrings(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

func encodeFreq(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys) // equal content, equal text
	var b strings.Builder
	for _, k := range keys {
		b.WriteString(k)
		b.WriteByte(':')
		b.WriteString(strconv.Itoa(m[k]))
		b.WriteByte(' ')
	}
	return b.String()
}

// eachFreq calls fn for every term and count of an encoded string. Terms
// are substrings of s: whoever keeps one clones it.
func eachFreq(s string, fn func(term string, n int)) {
	for s != "" {
		sp := strings.IndexByte(s, ' ')
		if sp < 0 {
			sp = len(s)
		}
		item := s[:sp]
		s = s[min(sp+1, len(s)):]
		c := strings.LastIndexByte(item, ':')
		if c <= 0 {
			continue
		}
		if n, err := strconv.Atoi(item[c+1:]); err == nil && n > 0 {
			fn(item[:c], n)
		}
	}
}

// record is a stored search document as the in-memory index needs it.
type record struct {
	key, ref, kb, parent, title string
	terms                       []string
	typ                         uint8
	published, deleted          bool
	tf, bf                      string
	tl, bl                      int64
	seq                         int64
	at                          time.Time
	text                        string // when read (TextsInMemory)
}

func decode(d store.Doc) (record, bool) {
	r := record{key: str(d["_id"]), ref: str(d[fRef]), kb: str(d[fKB]), parent: str(d[fParent]),
		title: str(d[fTitle]), text: str(d[fText]), tf: str(d[fTitleFreq]), bf: str(d[fTextFreq]),
		tl: store.Int(d[fTitleLen]), bl: store.Int(d[fTextLen]), seq: store.Int(d[fSeq])}
	r.published, _ = d[fPublished].(bool)
	r.deleted, _ = d[fDeleted].(bool)
	r.at, _ = d[fAt].(time.Time)
	for _, t := range asSlice(d[fTerms]) {
		r.terms = append(r.terms, str(t))
	}
	typ, ok := typeCode(str(d[fType]))
	r.typ = typ
	return r, ok && r.key != "" && r.seq > 0
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

func asSlice(v any) []any {
	s, _ := v.([]any)
	return s
}

// bounded cuts d's text and title to their limits on a rune boundary.
func bounded(d Doc) Doc {
	d.Text = cut(d.Text, MaxText)
	d.Title = cut(d.Title, maxTitle)
	return d
}

func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
