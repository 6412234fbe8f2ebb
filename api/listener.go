package api

import (
	"platform/kernel/resource"

	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"

	"platform/kernel/obs"
)

// EnvelopeListener makes the answers net/http writes on its own, before
// any handler runs, the error envelope like every other answer: 431 for a
// request line and headers beyond http.Server.MaxHeaderBytes (a filter of
// 50,000 conditions in the URL), 400 for a request it cannot parse, 501 for
// an unknown transfer coding. net/http writes those as plain text straight
// to the connection, in one resource.Write of a fixed shape (see plainRefusal); the
// connections of this listener recognise exactly that shape and write the
// envelope instead. Everything else passes through untouched.
func EnvelopeListener(l net.Listener, log *slog.Logger) net.Listener {
	return &envelopeListener{Listener: l, log: log}
}

type envelopeListener struct {
	net.Listener
	log *slog.Logger
}

func (l *envelopeListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &envelopeConn{Conn: c, log: l.log}, nil
}

type envelopeConn struct {
	net.Conn
	log *slog.Logger
}

func (c *envelopeConn) Write(p []byte) (int, error) {
	status, text, ok := plainRefusal(p)
	if !ok {
		return c.Conn.Write(p)
	}
	id := newDebugID()
	c.log.InfoContext(obs.WithDebugID(context.Background(), id), "request refused before routing",
		"status", status, "error", text, "remote", c.RemoteAddr().String())
	if _, err := c.Conn.Write(refusalAnswer(status, text, id)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// CloseWrite lets net/http half-close after a 431 as it does on a bare TCP
// connection, so the client reads the answer instead of a reset while it
// is still sending its oversized request.
func (c *envelopeConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// plainErrorHeaders is what net/http's own refusals carry between the
// status line and the text (net/http server.go, conn.serve), and nothing
// else; every answer of a handler carries a Date header at least.
const plainErrorHeaders = "\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n"

// plainRefusal recognises net/http's own refusal ("HTTP/1.1 431 Request
// Header Fields Too Large" + plainErrorHeaders + text) and returns its
// status and the text after the headers.
func plainRefusal(p []byte) (int, string, bool) {
	const proto = "HTTP/1.1 "
	if !bytes.HasPrefix(p, []byte(proto)) {
		return 0, "", false
	}
	end := bytes.Index(p, []byte(plainErrorHeaders))
	if end < 0 || bytes.Contains(p[:end], []byte("\r\n")) || end < len(proto)+3 {
		return 0, "", false
	}
	status, err := strconv.Atoi(string(p[len(proto) : len(proto)+3]))
	if err != nil || status < 400 || status > 599 {
		return 0, "", false
	}
	return status, string(p[end+len(plainErrorHeaders):]), true
}

// refusalAnswer is a complete HTTP answer carrying the error envelope.
func refusalAnswer(status int, text, debugID string) []byte {
	code, msg := resource.CodeMalformed, "the request could not be read: "+text
	if status == http.StatusRequestHeaderFieldsTooLarge {
		code, msg = CodeTooLarge, "the URL and headers are larger than the server accepts (a filter takes at most 1,000 values)"
	}
	env := Envelope{Meta: Meta{
		Links: []Link{}, Relations: []RelationLink{}, Actions: []ActionLink{},
		Errors:  []ErrorEntry{{Code: code, Message: msg}},
		DebugID: debugID, Version: Version{Host: CoreVersion, Core: CoreVersion},
		Code: status, Status: "error", Error: true,
	}}
	body, _ := json.Marshal(env) // strings and integers only: cannot fail
	head := fmt.Sprintf("HTTP/1.1 %d %s\r\nContent-Type: %s\r\nConnection: close\r\nContent-Length: %d\r\nX-Debug-Id: %s\r\n\r\n",
		status, http.StatusText(status), formatTypes[formatJSON], len(body), debugID)
	return append([]byte(head), body...)
}
