package notification_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"platform/kernel/store"
	"platform/modules/config/notification"
)

func TestSelects(t *testing.T) {
	t.Parallel()
	data := map[string]any{"email": "ada@example.com", "tier": "vip"}
	for _, c := range []struct {
		route store.Doc
		name  string
		want  bool
	}{
		{store.Doc{"event": "consumers.created"}, "consumers.created", true},
		{store.Doc{"event": "consumers.*"}, "consumers.updated", true},
		{store.Doc{"event": "*"}, "tasks.created", true},
		{store.Doc{"event": "consumers.*"}, "tasks.created", false},
		{store.Doc{"event": "consumers.*", "filter": map[string]any{"tier": "vip"}}, "consumers.created", true},
		{store.Doc{"event": "consumers.*", "filter": map[string]any{"tier": "basic"}}, "consumers.created", false},
		{store.Doc{"event": "consumers.*", "filter": map[string]any{"$bad": 1}}, "consumers.created", false},
		{store.Doc{}, "consumers.created", false},
	} {
		require.Equal(t, c.want, notification.Selects(c.route, c.name, data), "%v on %s", c.route, c.name)
	}
}

func TestRenderIsPlainTextAndBounded(t *testing.T) {
	t.Parallel()
	out, err := notification.Render("{{data.name}} <{{data.email}}> {{#each data.tags}}[{{this}}]{{/each}}",
		map[string]any{"data": map[string]any{"name": "Tom & Jerry", "email": "t@example.com", "tags": []any{"a<b", "c"}}})
	require.NoError(t, err)
	require.Equal(t, "Tom & Jerry <t@example.com> [a<b][c]", out)

	items := make([]any, 100)
	for i := range items {
		items[i] = strings.Repeat("x", 1<<10)
	}
	_, err = notification.Render("{{#each data.items}}{{this}}{{/each}}", map[string]any{"data": map[string]any{"items": items}})
	require.ErrorContains(t, err, "at most")

	_, err = notification.Render("{{#if x}}open", nil)
	require.Error(t, err)
}

func TestDeliveryIDIsStablePerRouteAndEvent(t *testing.T) {
	t.Parallel()
	require.Equal(t, notification.DeliveryID("r", "e"), notification.DeliveryID("r", "e"))
	require.NotEqual(t, notification.DeliveryID("r", "e"), notification.DeliveryID("r", "f"))
	require.NotEqual(t, notification.DeliveryID("r", "e"), notification.DeliveryID("re", ""))
}
