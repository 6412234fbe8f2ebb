package translatetest_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"platform/kernel/translate/translatetest"
)

func post(t *testing.T, srv *translatetest.Server, body any) (int, string) {
	raw, err := json.Marshal(body)
	require.NoError(t, err)
	req, err := http.NewRequest(http.MethodPost, srv.URL()+"/v2/translate", bytes.NewReader(raw))
	require.NoError(t, err)
	req.Header.Set("Authorization", "DeepL-Auth-Key "+srv.Key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(out)
}

func TestServerRefusesTooManyTexts(t *testing.T) {
	srv := translatetest.New(t)
	status, body := post(t, srv, map[string]any{"text": make([]string, 51), "target_lang": "DE"})
	assert.Equal(t, http.StatusBadRequest, status)
	assert.Contains(t, body, "Too many texts")
	assert.Len(t, srv.Requests(), 1, "refused requests are recorded too")
}

func TestServerRefusesBadTarget(t *testing.T) {
	srv := translatetest.New(t)
	status, _ := post(t, srv, map[string]any{"text": []string{"a"}, "target_lang": "german"})
	assert.Equal(t, http.StatusBadRequest, status)
}

func TestServerKeepsIgnoredXML(t *testing.T) {
	srv := translatetest.New(t)
	status, body := post(t, srv, map[string]any{
		"text": []string{`<p>one <x>two three</x> <y/>four</p>`}, "target_lang": "NL",
		"tag_handling": "xml", "ignore_tags": []string{"x"},
	})
	require.Equal(t, http.StatusOK, status)
	assert.JSONEq(t, `{"translations":[{"detected_source_language":"EN","text":"<p>nl:one <x>two three</x> <y/>nl:four</p>"}]}`, body)
}

func TestServerFailsInOrder(t *testing.T) {
	srv := translatetest.New(t)
	srv.Fail(http.StatusTooManyRequests, 1)
	srv.Fail(http.StatusInternalServerError, 1)
	req := map[string]any{"text": []string{"a"}, "target_lang": "DE"}
	for _, want := range []int{429, 500, 200} {
		status, _ := post(t, srv, req)
		assert.Equal(t, want, status)
	}
}
