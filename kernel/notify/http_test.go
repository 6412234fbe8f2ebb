package notify

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// recorder is a provider endpoint that records what it is sent.
type recorder struct {
	mu     sync.Mutex
	reqs   []recorded
	status int
	header map[string]string
	body   string
	delay  time.Duration
}

type recorded struct {
	Method, Path, Auth, ContentType string
	Body                            map[string]any
}

func (rc *recorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	var body map[string]any
	_ = json.Unmarshal(raw, &body)
	rc.mu.Lock()
	rc.reqs = append(rc.reqs, recorded{r.Method, r.URL.Path, r.Header.Get("Authorization"), r.Header.Get("Content-Type"), body})
	status, delay, hdr, respBody := rc.status, rc.delay, rc.header, rc.body
	rc.mu.Unlock()
	if delay > 0 {
		select {
		case <-time.After(delay):
		case <-r.Context().Done():
			return
		}
	}
	for k, v := range hdr {
		w.Header().Set(k, v)
	}
	if status == 0 {
		status = http.StatusAccepted
	}
	w.WriteHeader(status)
	_, _ = io.WriteString(w, respBody)
}

func (rc *recorder) requests() []recorded {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]recorded(nil), rc.reqs...)
}

func startProvider(t *testing.T, rc *recorder) string {
	t.Helper()
	srv := httptest.NewServer(rc)
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestHTTPSMSPostsOneRequestPerRecipient(t *testing.T) {
	rc := &recorder{}
	url := startProvider(t, rc)
	s := &HTTPSMS{URL: url + "/v1/sms", Token: "sms-secret"}
	err := s.Send(context.Background(), Message{Channel: ChannelSMS, To: []string{"+4915112345678", "+14155550123"}, Subject: "ignored", Body: "Your code is 1234"})
	if err != nil {
		t.Fatalf("Send: %v", err)
	}
	reqs := rc.requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	for i, to := range []string{"+4915112345678", "+14155550123"} {
		r := reqs[i]
		if r.Method != http.MethodPost || r.Path != "/v1/sms" {
			t.Errorf("request %d: %s %s, want POST /v1/sms", i, r.Method, r.Path)
		}
		if r.Auth != "Bearer sms-secret" {
			t.Errorf("request %d: Authorization = %q", i, r.Auth)
		}
		if r.ContentType != "application/json" {
			t.Errorf("request %d: Content-Type = %q", i, r.ContentType)
		}
		want := map[string]any{"to": to, "body": "Your code is 1234"}
		if !equalJSON(r.Body, want) {
			t.Errorf("request %d: body = %v, want %v", i, r.Body, want)
		}
	}
}

func TestHTTPPushBody(t *testing.T) {
	rc := &recorder{status: http.StatusOK}
	url := startProvider(t, rc)
	p := &HTTPPush{URL: url + "/push"} // no token: no Authorization header
	err := p.Send(context.Background(), Message{
		Channel: ChannelPush, To: []string{"fcm:APA91bH-token_1"},
		Subject: "Order shipped", Body: "Your order #42 is on its way",
		Data: map[string]any{"orderId": "42", "count": 3},
	})
	if err != nil {
		t.Fatalf("Send: %v", err)
	}
	reqs := rc.requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	r := reqs[0]
	if r.Method != http.MethodPost || r.Path != "/push" || r.Auth != "" {
		t.Errorf("got %s %s Authorization %q", r.Method, r.Path, r.Auth)
	}
	want := map[string]any{"to": "fcm:APA91bH-token_1", "title": "Order shipped", "body": "Your order #42 is on its way",
		"data": map[string]any{"orderId": "42", "count": float64(3)}}
	if !equalJSON(r.Body, want) {
		t.Errorf("body = %v, want %v", r.Body, want)
	}
}

func TestHTTPPushWithoutDataOmitsIt(t *testing.T) {
	rc := &recorder{}
	url := startProvider(t, rc)
	if err := (&HTTPPush{URL: url, Token: "t"}).Send(context.Background(), Message{Channel: ChannelPush, To: []string{"tok"}, Body: "b"}); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"to": "tok", "title": "", "body": "b"}
	if got := rc.requests()[0]; !equalJSON(got.Body, want) || got.Auth != "Bearer t" {
		t.Errorf("body = %v auth %q, want %v", got.Body, got.Auth, want)
	}
}

func TestHTTPStatusClassification(t *testing.T) {
	cases := []struct {
		status    int
		permanent bool
	}{
		{400, true}, {401, true}, {403, true}, {404, true}, {422, true}, {301, true},
		{408, false}, {429, false}, {500, false}, {502, false}, {503, false},
	}
	for _, c := range cases {
		rc := &recorder{status: c.status, body: `{"error":"nope"}`, header: map[string]string{"Location": "/elsewhere"}}
		url := startProvider(t, rc)
		for _, s := range []Sender{&HTTPSMS{URL: url}, &HTTPPush{URL: url}} {
			ch, to := ChannelSMS, "+4915112345678"
			if _, ok := s.(*HTTPPush); ok {
				ch, to = ChannelPush, "tok"
			}
			err := s.Send(context.Background(), Message{Channel: ch, To: []string{to}, Body: "b"})
			if err == nil {
				t.Errorf("%s %d: no error", ch, c.status)
				continue
			}
			if IsPermanent(err) != c.permanent {
				t.Errorf("%s %d: IsPermanent = %v, want %v (%v)", ch, c.status, IsPermanent(err), c.permanent, err)
			}
			var se *StatusError
			if !errors.As(err, &se) || se.StatusCode != c.status || se.Body != `{"error":"nope"}` {
				t.Errorf("%s %d: err = %#v", ch, c.status, err)
			}
		}
		if n := len(rc.requests()); n != 2 {
			t.Errorf("%d: %d requests, want 2 (redirects are not followed)", c.status, n)
		}
	}
}

func TestHTTP503RetryAfter(t *testing.T) {
	rc := &recorder{status: 503, header: map[string]string{"Retry-After": "120"}}
	url := startProvider(t, rc)
	err := (&HTTPSMS{URL: url}).Send(context.Background(), Message{Channel: ChannelSMS, To: []string{"+4915112345678"}, Body: "b"})
	var se *StatusError
	if !errors.As(err, &se) || IsPermanent(err) || se.RetryAfter != 2*time.Minute {
		t.Fatalf("err = %#v, want transient 503 with Retry-After 2m", err)
	}
}

func TestHTTPStopsAtFirstFailure(t *testing.T) {
	rc := &recorder{status: 400}
	url := startProvider(t, rc)
	err := (&HTTPSMS{URL: url}).Send(context.Background(), Message{Channel: ChannelSMS, To: []string{"+4915112345678", "+14155550123"}, Body: "b"})
	if err == nil || len(rc.requests()) != 1 {
		t.Fatalf("err %v after %d requests, want an error after 1", err, len(rc.requests()))
	}
}

func TestHTTPErrorBodyIsLimited(t *testing.T) {
	rc := &recorder{status: 400, body: strings.Repeat("x", 1<<20)}
	url := startProvider(t, rc)
	err := (&HTTPPush{URL: url}).Send(context.Background(), Message{Channel: ChannelPush, To: []string{"tok"}, Body: "b"})
	var se *StatusError
	if !errors.As(err, &se) || len(se.Body) != maxErrorBody {
		t.Fatalf("kept %d bytes of the body, want %d", len(se.Body), maxErrorBody)
	}
}

func TestHTTPSlowServerTimesOut(t *testing.T) {
	rc := &recorder{delay: 5 * time.Second}
	url := startProvider(t, rc)
	for _, s := range []Sender{&HTTPSMS{URL: url, Timeout: 200 * time.Millisecond}, &HTTPPush{URL: url, Timeout: 200 * time.Millisecond}} {
		ch, to := ChannelSMS, "+4915112345678"
		if _, ok := s.(*HTTPPush); ok {
			ch, to = ChannelPush, "tok"
		}
		start := time.Now()
		err := s.Send(context.Background(), Message{Channel: ch, To: []string{to}, Body: "b"})
		if err == nil || IsPermanent(err) {
			t.Fatalf("%s: err = %v, want a transient time-out", ch, err)
		}
		if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "no answer within 200ms") {
			t.Errorf("%s: err = %v, want a time-out", ch, err)
		}
		requireCause(t, err, "timed out after 0.2 s", strings.TrimPrefix(url, "http://"))
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("%s: Send took %s", ch, d)
		}
	}
}

func TestHTTPConnectionRefusedIsTransient(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	err := (&HTTPSMS{URL: url}).Send(context.Background(), Message{Channel: ChannelSMS, To: []string{"+4915112345678"}, Body: "b"})
	if err == nil || IsPermanent(err) {
		t.Fatalf("err = %v, want transient", err)
	}
	requireCause(t, err, "connection refused by the sms provider", strings.TrimPrefix(url, "http://"))
}

func TestHTTPUnencodableDataIsPermanent(t *testing.T) {
	rc := &recorder{}
	url := startProvider(t, rc)
	err := (&HTTPPush{URL: url}).Send(context.Background(), Message{Channel: ChannelPush, To: []string{"tok"}, Data: map[string]any{"f": func() {}}})
	if err == nil || !IsPermanent(err) || len(rc.requests()) != 0 {
		t.Fatalf("err = %v, %d requests", err, len(rc.requests()))
	}
}

func equalJSON(got, want map[string]any) bool {
	a, _ := json.Marshal(got)
	b, _ := json.Marshal(want)
	return string(a) == string(b)
}
