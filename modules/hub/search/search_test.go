package search

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRankingPrefersDocumentsMatchingMoreWords(t *testing.T) {
	f := newFixture(t)
	f.put(ctxA,
		page("p1", "Cluster notes", "We run kubernetes in three regions. The deployment uses helm charts."),
		page("p2", "Release process", "Every deployment is reviewed before it goes out."),
		page("p3", "Kubernetes basics", "Pods, services and nodes."),
		page("p4", "Lunch", "The canteen opens at noon."))
	got := f.ids(ctxA, "kubernetes deployment")
	require.NotEmpty(t, got)
	assert.Equal(t, "p1", got[0], "the only page with both words")
	assert.ElementsMatch(t, []string{"p1", "p2", "p3"}, got, "OR semantics: either word matches")
}

func TestTitleMatchOutranksBodyOnlyMatch(t *testing.T) {
	f := newFixture(t)
	f.put(ctxA,
		page("body", "Accounting overview", strings.Repeat("An invoice is sent monthly. Invoice numbers are unique. ", 8)),
		page("title", "Invoice", "How we bill customers at the end of the month."))
	assert.Equal(t, []string{"title", "body"}, f.ids(ctxA, "invoice"))
}

func TestLastWordMatchesAsPrefix(t *testing.T) {
	f := newFixture(t)
	f.put(ctxA, page("k", "Container platform", "Our clusters run Kubernetes 1.30."),
		page("o", "Other", "Nothing about containers here, only kubectl tips."))
	assert.Equal(t, []string{"k"}, f.ids(ctxA, "kuber"))
	assert.Equal(t, []string{"k"}, f.ids(ctxA, "clusters kuber"))
	assert.Empty(t, f.ids(ctxA, "kuber "), "a finished word is not a prefix")
	assert.Empty(t, f.ids(ctxA, "kuber garage"), "only the last word is a prefix")
}

func TestDiacriticsAndCaseFold(t *testing.T) {
	f := newFixture(t)
	f.put(ctxA, page("cv", "Résumé guidelines", "Send your CURRICULUM to the Zürich office."),
		page("plain", "Resume a paused job", "Click resume."))
	assert.ElementsMatch(t, []string{"cv", "plain"}, f.ids(ctxA, "resume"))
	assert.ElementsMatch(t, []string{"cv", "plain"}, f.ids(ctxA, "RÉSUMÉ"))
	assert.Equal(t, []string{"cv"}, f.ids(ctxA, "zurich curriculum"))
	// Text in decomposed form (e + combining accent) folds the same way.
	f.put(ctxA, page("nfd", "Cafe\u0301 rules", "Coffee."))
	assert.Equal(t, []string{"nfd"}, f.ids(ctxA, "café"))
}

func TestSnippetsAreEscapedAndMarked(t *testing.T) {
	f := newFixture(t)
	f.put(ctxA, page("x", "Embedding widgets", `Never paste <script>alert("x")</script> into a page & expect Widgets to work.`))
	hits := f.search(ctxA, Query{Q: "widgets script", Types: allTypes})
	require.Len(t, hits, 1)
	require.Len(t, hits[0].Snippets, 1)
	s := hits[0].Snippets[0]
	assert.Contains(t, s, "&lt;<mark>script</mark>&gt;")
	assert.Contains(t, s, "&amp; expect <mark>Widgets</mark> to work")
	assert.NotContains(t, s, "<script")
}

func TestSnippetsShowTwoFragmentsAroundTheBestMatches(t *testing.T) {
	f := newFixture(t)
	filler := strings.Repeat("lorem ipsum dolor sit amet ", 20)
	f.put(ctxA, page("long", "Handbook", "Start. "+filler+"The vacation policy is generous. "+filler+
		"Ask about vacation days early. "+filler+"End."))
	hits := f.search(ctxA, Query{Q: "vacation", Types: allTypes})
	require.Len(t, hits, 1)
	require.Len(t, hits[0].Snippets, 2)
	for _, s := range hits[0].Snippets {
		assert.Contains(t, s, "<mark>vacation</mark>")
		assert.LessOrEqual(t, len(s), fragLen+40, "about 160 characters plus marks and ellipses")
		assert.True(t, strings.HasPrefix(s, "…") && strings.HasSuffix(s, "…"), s)
	}
	assert.Contains(t, hits[0].Snippets[0], "policy")
	assert.Contains(t, hits[0].Snippets[1], "days early")
}

func TestTitleOnlyMatchShowsTheStartOfTheText(t *testing.T) {
	f := newFixture(t)
	f.put(ctxA, page("t", "Onboarding checklist", "Get a laptop <b>first</b>. "+strings.Repeat("Then more steps. ", 30)))
	hits := f.search(ctxA, Query{Q: "onboarding", Types: allTypes})
	require.Len(t, hits, 1)
	require.Len(t, hits[0].Snippets, 1)
	assert.True(t, strings.HasPrefix(hits[0].Snippets[0], "Get a laptop &lt;b&gt;first&lt;/b&gt;. Then"))
	assert.True(t, strings.HasSuffix(hits[0].Snippets[0], "…"))
}

func TestFilters(t *testing.T) {
	f := newFixture(t)
	f.put(ctxA,
		Doc{Type: TypeWikiPage, ID: "pub", Title: "Expense policy", KB: "finance", Published: true},
		Doc{Type: TypeWikiPage, ID: "draft", Title: "Expense policy draft", KB: "finance"},
		Doc{Type: TypeWikiPage, ID: "other", Title: "Expense tips", KB: "travel", Published: true},
		Doc{Type: TypeFAQ, ID: "faq", Title: "How do I file an expense?", Text: "Use the form.", Published: true},
		Doc{Type: TypeGlossary, ID: "gl", Title: "Expense", Text: "Money spent.", Published: true})
	q := func(q Query) []string { q.Q = "expense"; return hitIDs(f.search(ctxA, q)) }
	assert.ElementsMatch(t, []string{"pub", "other", "faq", "gl"}, q(Query{Types: allTypes}), "published only")
	assert.ElementsMatch(t, []string{"pub", "draft", "other", "faq", "gl"}, q(Query{Types: allTypes, Unpublished: true}))
	assert.ElementsMatch(t, []string{"pub", "draft"}, q(Query{Types: allTypes, Unpublished: true, KB: "finance"}))
	assert.Empty(t, q(Query{Types: allTypes, KB: "nope"}))
	assert.ElementsMatch(t, []string{"faq", "gl"}, q(Query{Types: []string{TypeFAQ, TypeGlossary}}))
	assert.Empty(t, q(Query{}), "no viewable type, nothing visible")
	assert.Len(t, q(Query{Types: allTypes, Limit: 2}), 2)
}

func TestRemoveAndPutReplacing(t *testing.T) {
	f := newFixture(t)
	f.put(ctxA, page("a", "Parking", "Garage level two."), page("b", "Parking rules", "No overnight parking."))
	assert.ElementsMatch(t, []string{"a", "b"}, f.ids(ctxA, "parking"))
	require.NoError(t, f.x.Remove(ctxA, TypeWikiPage, "a"))
	assert.Equal(t, []string{"b"}, f.ids(ctxA, "parking"))
	require.NoError(t, f.x.Remove(ctxA, TypeWikiPage, "never-indexed"), "removing the unknown is fine")

	f.put(ctxA, page("b", "Bicycle storage", "Racks behind the building."))
	assert.Empty(t, f.ids(ctxA, "parking"), "the old version is gone")
	assert.Equal(t, []string{"b"}, f.ids(ctxA, "bicycle"))
	f.put(ctxA, page("a", "Parking again", "Back."))
	assert.Equal(t, []string{"a"}, f.ids(ctxA, "parking"), "a removed record can come back")
}

func TestHitCarriesTheRecordsFields(t *testing.T) {
	f := newFixture(t)
	f.put(ctxA, Doc{Type: TypeWikiPage, ID: "64b000000000000000000001", Title: "SLA", Text: "Uptime is 99.9%.",
		KB: "ops", Parent: "contracts", Published: true, Terms: []string{"uptime"}})
	hits := f.search(ctxA, Query{Q: "sla", Types: allTypes})
	require.Len(t, hits, 1)
	h := hits[0]
	assert.Equal(t, Hit{Type: TypeWikiPage, ID: "64b000000000000000000001", Title: "SLA", Score: h.Score,
		Snippets: []string{"Uptime is 99.9%."}, KB: "ops", Parent: "contracts", Terms: []string{"uptime"}}, h)
	assert.Positive(t, h.Score)
}

func TestQueryValidationAndBounds(t *testing.T) {
	f := newFixture(t)
	f.put(ctxA, page("a", "Alpha", "alpha beta"))
	_, err := f.x.Search(ctxA, Query{Q: "  ", Types: allTypes})
	assert.ErrorIs(t, err, ErrEmptyQuery)
	assert.Empty(t, f.ids(ctxA, "?!"), "no words, nothing found")
	long := strings.Repeat("zzz ", 100) + "alpha"
	assert.Empty(t, f.ids(ctxA, long), "cut at 200 characters")
	many := strings.Repeat("w1 w2 w3 w4 w5 w6 w7 w8 w9 w10 w11 w12 w13 w14 w15 w16 w17 ", 1) + "alpha"
	assert.Equal(t, []string{"a"}, f.ids(ctxA, many), "16 words: the first 15 and the last")
	assert.ErrorIs(t, f.x.Put(ctxA, Doc{Type: "blog", ID: "x"}), ErrInvalidDoc)
	_, err = f.x.Search(ctxOf(""), Query{Q: "alpha", Types: allTypes})
	assert.Error(t, err, "no customer, no search")
}

func TestCandidatesFindPagesMentioningAllWords(t *testing.T) {
	f := newFixture(t)
	f.put(ctxA,
		page("p1", "Contracts", "Our service level agreement promises uptime."),
		page("p2", "Glossary use", "A service is something we level with."),
		page("p3", "Service level", "Title only mentions it; text is about agreement."),
		Doc{Type: TypeFAQ, ID: "f1", Title: "SLA?", Text: "The service level agreement.", Published: true})
	got, err := f.x.Candidates(ctxA, []string{"Service Level", "Agreement"})
	require.NoError(t, err)
	assert.Equal(t, []string{"p1"}, got, "pages whose text has every word")
	got, err = f.x.Candidates(ctxA, []string{"service", "missing"})
	require.NoError(t, err)
	assert.Empty(t, got)
}

func TestSnippetsFromTextsHeldInMemory(t *testing.T) {
	st := newStore(t)
	f := &fixture{t: t, st: st, x: newIndex(t, st, Options{TextsInMemory: true})}
	writer := newIndex(t, st, Options{})
	f.put(ctxA, page("m", "Mail", "Use <b>filters</b> for newsletters."))
	snippet := func() []string { return f.search(ctxA, Query{Q: "filters", Types: allTypes})[0].Snippets }
	assert.Equal(t, []string{"Use &lt;b&gt;<mark>filters</mark>&lt;/b&gt; for newsletters."}, snippet())
	require.NoError(t, writer.Put(ctxA, page("m", "Mail", "Other filters now.")))
	assert.Equal(t, []string{"Other <mark>filters</mark> now."}, snippet(), "another process's text")
}

// TestPutManyBackfillsAndReplaces: a backfill is searchable like Puts, a
// second one replaces what the first stored, and later Puts still win.
func TestPutManyBackfillsAndReplaces(t *testing.T) {
	f := newFixture(t)
	require.NoError(t, f.x.PutMany(ctxA, []Doc{page("a", "Alpha", "first words"), page("b", "Beta", "other words")}))
	assert.ElementsMatch(t, []string{"a", "b"}, f.ids(ctxA, "words"))
	require.NoError(t, f.x.PutMany(ctxA, []Doc{page("a", "Alpha", "replaced text"), page("c", "Gamma", "new words")}))
	assert.ElementsMatch(t, []string{"b", "c"}, f.ids(ctxA, "words"))
	assert.Equal(t, []string{"a"}, f.ids(ctxA, "replaced"))
	f.put(ctxA, page("c", "Gamma", "put after the backfill"))
	assert.Equal(t, []string{"c"}, f.ids(ctxA, "backfill"))
	assert.Empty(t, f.ids(ctxOf("customer-b"), "words"), "another customer sees none of it")
}
