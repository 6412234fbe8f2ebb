package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"platform/test/testenv"
)

// BenchmarkOAuthTokenIssue measures client_credentials issuance through the
// token endpoint (client lookup, secret check, grant, ES256 signature, the
// token record and the audit record), from 50 concurrent clients.
func BenchmarkOAuthTokenIssue(b *testing.B) {
	p := testenv.NewPlatform(b, testenv.Options{})
	clientID, secret := benchApp(b, p)
	measure(b, func(int) error {
		_, err := clientCredentials(p, clientID, secret)
		return err
	})
}

// BenchmarkOAuthAPICall measures API calls carrying an OAuth access token:
// signature, claims and the revocation check on every call. /events does
// nothing but authenticate; the list adds the rate limit and one store read.
// "cached" is the default (a "not revoked" answer kept for 1 s); "uncached"
// reads the token's record on every call.
func BenchmarkOAuthAPICall(b *testing.B) {
	p := testenv.NewPlatform(b, testenv.Options{})
	clientID, secret := benchApp(b, p)
	tok, err := clientCredentials(p, clientID, secret)
	if err != nil {
		b.Fatal(err)
	}
	if r := p.Do("POST", "/crm/consumers", tok, map[string]any{"email": "bench@example.com"}); r.Status != 201 {
		b.Fatalf("seed: %d %s", r.Status, r.Body)
	}
	for _, c := range []struct {
		name string
		ttl  bool
	}{{"cached", true}, {"uncached", false}} {
		for _, path := range []string{"/events", "/crm/consumers?limit=1"} {
			b.Run(c.name+path, func(b *testing.B) {
				if c.ttl {
					p.Revocations.NegativeTTL = 1e9
				} else {
					p.Revocations.NegativeTTL = 0
				}
				measure(b, func(int) error { return expect(get(p, path, tok), 200) })
			})
		}
	}
}

func benchApp(b *testing.B, p *testenv.Platform) (string, string) {
	r := p.Do("POST", "/developer/apps", p.Token("developer.apps.*"), map[string]any{
		"name": "Bench", "redirect_uris": []string{"https://bench.example.com/cb"}, "scopes": []string{"crm.*"},
	})
	if r.Status != 201 {
		b.Fatalf("register app: %d %s", r.Status, r.Body)
	}
	return r.Payload()["client_id"].(string), r.Payload()["client_secret"].(string)
}

var benchHTTP = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 100}}

func clientCredentials(p *testenv.Platform, id, secret string) (string, error) {
	req, _ := http.NewRequest("POST", p.URL+"/oauth/token", strings.NewReader(url.Values{"grant_type": {"client_credentials"}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth(id, secret)
	res, err := benchHTTP.Do(req)
	if err != nil {
		return "", err
	}
	defer res.Body.Close()
	var out struct {
		AccessToken string `json:"access_token"`
	}
	if err := json.NewDecoder(res.Body).Decode(&out); err != nil || res.StatusCode != 200 {
		return "", fmt.Errorf("token: status %d %v", res.StatusCode, err)
	}
	return out.AccessToken, nil
}

func get(p *testenv.Platform, path, tok string) int {
	req, _ := http.NewRequest("GET", p.URL+path, nil)
	req.Header.Set("Authorization", "Bearer "+tok)
	res, err := benchHTTP.Do(req)
	if err != nil {
		return 0
	}
	defer res.Body.Close()
	_, _ = io.Copy(io.Discard, res.Body)
	return res.StatusCode
}
