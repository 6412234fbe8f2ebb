package search

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// judged is testdata/judged.json: documents written for the test and
// queries with the ids a person judged relevant.
type judged struct {
	Docs []struct {
		Type, ID, Title, Text, KB string
	}
	Queries []struct {
		Q        string
		Relevant []string
	}
}

// TestJudgedQueries measures the ranking on the judged set: recall@5 (the
// share of relevant documents in the first five) and MRR (the mean of
// 1/rank of the first relevant hit), averaged over the queries with
// relevant documents. A query with none must still answer.
func TestJudgedQueries(t *testing.T) {
	raw, err := os.ReadFile("testdata/judged.json")
	require.NoError(t, err)
	var j judged
	require.NoError(t, json.Unmarshal(raw, &j))
	require.GreaterOrEqual(t, len(j.Docs), 60)
	require.GreaterOrEqual(t, len(j.Queries), 20)
	f := newFixture(t)
	for _, d := range j.Docs {
		f.put(ctxA, Doc{Type: d.Type, ID: d.ID, Title: d.Title, Text: d.Text, KB: d.KB, Published: true})
	}
	var recall, rr float64
	n := 0
	for _, q := range j.Queries {
		got := f.ids(ctxA, q.Q)
		if len(q.Relevant) == 0 {
			continue
		}
		r5, first := judge(got, q.Relevant)
		t.Logf("%-45q recall@5 %.2f rr %.2f  %v", q.Q, r5, first, got[:min(5, len(got))])
		recall, rr, n = recall+r5, rr+first, n+1
	}
	recall, rr = recall/float64(n), rr/float64(n)
	t.Logf("judged set: %d documents, %d queries: recall@5 %.3f, MRR %.3f", len(j.Docs), n, recall, rr)
	assert.GreaterOrEqual(t, recall, 0.8, "recall@5")
	assert.GreaterOrEqual(t, rr, 0.7, "MRR")
}

// judge returns recall@5 and the reciprocal rank of the first relevant hit.
func judge(got, relevant []string) (float64, float64) {
	rel := map[string]bool{}
	for _, id := range relevant {
		rel[id] = true
	}
	found, first := 0, 0.0
	for i, id := range got {
		if !rel[id] {
			continue
		}
		if i < 5 {
			found++
		}
		if first == 0 {
			first = 1 / float64(i+1)
		}
	}
	return float64(found) / float64(min(5, len(relevant))), first
}
