package aggregation_test

import (
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"platform/test/testenv"
)

// checkAPI: the read models are served with the list conventions, need
// their view right each, and show one customer's rows only.
func checkAPI(t *testing.T, p *testenv.Platform, consumer string) {
	view := p.Token("aggregation.consumeractivity.view")
	r := p.Do("GET", "/aggregation/consumeractivity?count=true", view, nil)
	require.Equal(t, 200, r.Status, string(r.Body))
	require.NotEmpty(t, r.List())
	require.EqualValues(t, len(r.List()), r.Meta()["total"])

	r = p.Do("GET", "/aggregation/consumeractivity/"+consumer, view, nil)
	require.Equal(t, 200, r.Status, string(r.Body))
	require.Equal(t, consumer, r.Payload()["consumer"], "a consumer's row has its id")
	require.NotContains(t, r.Payload(), "lastBatch")

	filter := url.QueryEscape(`{"mailsSent":{"$gte":1}}`)
	r = p.Do("GET", "/aggregation/consumeractivity?sort=-mailsSent,_id&filter="+filter, view, nil)
	require.Equal(t, 200, r.Status, string(r.Body))
	prev := int64(1 << 40)
	for _, row := range r.List() {
		n := int64(number(row["mailsSent"]))
		require.GreaterOrEqual(t, n, int64(1))
		require.LessOrEqual(t, n, prev, "sorted by mailsSent descending")
		prev = n
	}

	for _, q := range []string{"filter=" + url.QueryEscape(`{"lastBatch":"x"}`), "sort=hist", "sort=-updatedAtX"} {
		r = p.Do("GET", "/aggregation/consumeractivity?"+q, view, nil)
		require.Equal(t, 400, r.Status, q)
	}

	r = p.Do("GET", "/aggregation/consumeractivity?format=csv", view, nil)
	require.Equal(t, 200, r.Status, string(r.Body))
	require.True(t, strings.HasPrefix(string(r.Body), "_id,") || strings.Contains(strings.SplitN(string(r.Body), "\n", 2)[0], "tasksOpen"), string(r.Body))

	stats := p.Token("aggregation.pipelinestats.view")
	r = p.Do("GET", "/aggregation/pipelinestats?sort=-p95Ms&limit=5", stats, nil)
	require.Equal(t, 200, r.Status, string(r.Body))
	require.NotEmpty(t, r.List())
	require.Contains(t, r.List()[0], "p50Ms")
	require.NotContains(t, r.List()[0], "hist")

	// Rights: each model needs its own; the list shows what the token may view.
	require.Equal(t, 403, p.Do("GET", "/aggregation/consumeractivity", stats, nil).Status)
	require.Equal(t, 403, p.Do("GET", "/aggregation", p.Token("crm.*"), nil).Status)
	r = p.Do("GET", "/aggregation", stats, nil)
	require.Equal(t, 200, r.Status, string(r.Body))
	require.Len(t, r.List(), 1)
	require.Equal(t, "pipelinestats", r.List()[0]["name"])
	r = p.Do("GET", "/aggregation", p.Token("aggregation.*"), nil)
	require.Equal(t, 200, r.Status, string(r.Body))
	require.Len(t, r.List(), 4)
	require.NotEmpty(t, r.List()[0]["appliedAt"], "the customer's freshness")

	// Read-only.
	for _, m := range []string{"POST", "PUT", "PATCH", "DELETE"} {
		path := "/aggregation/consumeractivity/" + consumer
		if m == "POST" {
			path = "/aggregation/consumeractivity"
		}
		require.Contains(t, []int{404, 405}, p.Do(m, path, p.Token("*"), map[string]any{"tasksOpen": 99}).Status, m)
	}

	// Another customer sees none of these rows.
	other, admin := p.OtherCustomer("aggregation-other")
	tok := p.TokenFor(other.ID, admin.ID, "aggregation.*")
	for _, m := range []string{"consumeractivity", "newsletterfunnels", "pipelinestats", "webhookhealth"} {
		r = p.Do("GET", "/aggregation/"+m, tok, nil)
		require.Equal(t, 200, r.Status, string(r.Body))
		require.Empty(t, r.List(), m)
	}
	require.Equal(t, 404, p.Do("GET", "/aggregation/consumeractivity/"+consumer, tok, nil).Status)
}
