package console

import (
	"bytes"
	"context"
	"io"
	"net/http"
)

// inProcess serves the console's calls to the API and to the token
// endpoint with the platform's own handler, in this process: the same
// routes, rights checks, validation and rate limits as any API client,
// without a trip through the network.
type inProcess struct{ h http.Handler }

var _ http.RoundTripper = inProcess{}

type peerKey struct{}

// withPeer carries the browser's address (and forwarding header) into the
// in-process calls, so audit records and rate limits see the real client.
func withPeer(ctx context.Context, r *http.Request) context.Context {
	return context.WithValue(ctx, peerKey{}, peer{addr: r.RemoteAddr, forwarded: r.Header.Get("X-Forwarded-For")})
}

type peer struct{ addr, forwarded string }

func (t inProcess) RoundTrip(r *http.Request) (*http.Response, error) {
	in := r.Clone(r.Context())
	in.RequestURI = r.URL.RequestURI()
	in.Host = r.URL.Host
	in.RemoteAddr = "127.0.0.1:0"
	in.Header.Del("X-Forwarded-For")
	if p, ok := r.Context().Value(peerKey{}).(peer); ok {
		in.RemoteAddr = p.addr
		if p.forwarded != "" {
			in.Header.Set("X-Forwarded-For", p.forwarded)
		}
	}
	if in.Body == nil {
		in.Body = http.NoBody
	}
	w := &buffer{header: http.Header{}}
	t.h.ServeHTTP(w, in)
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return &http.Response{StatusCode: w.status, Status: http.StatusText(w.status), Header: w.header, Request: r,
		Body: io.NopCloser(bytes.NewReader(w.body.Bytes())), ContentLength: int64(w.body.Len()), Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1}, nil
}

// buffer is the ResponseWriter of an in-process call.
type buffer struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (b *buffer) Header() http.Header { return b.header }

func (b *buffer) WriteHeader(code int) {
	if b.status == 0 {
		b.status = code
	}
}

func (b *buffer) Write(p []byte) (int, error) {
	b.WriteHeader(http.StatusOK)
	return b.body.Write(p)
}
