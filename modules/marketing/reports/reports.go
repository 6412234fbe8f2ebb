// Package reports reads what mail providers send back about the
// platform's mail: a simple JSON form, RFC 3464 delivery status
// notifications (bounces) and RFC 5965 ARF feedback reports (complaints),
// either as the bare multipart/report or as the whole report mail. It
// finds the Message-ID of the original mail, which names the mail log.
package reports

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/mail"
	"strings"
)

// Kinds of report.
const (
	Bounce    = "bounce"
	Complaint = "complaint"
)

// MaxReason bounds the reason kept from a report.
const MaxReason = 1000

// Report is one bounce or complaint. A report that moves nothing (a
// delayed or delivered DSN, a not-spam feedback) has an empty Type.
type Report struct {
	MessageID string
	Type      string
	Reason    string
}

// ErrMalformed marks a body that is not a report of a known format.
var ErrMalformed = errors.New("reports: malformed")

func malformed(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrMalformed, fmt.Sprintf(format, args...))
}

// Parse reads a report sent with the content type ct.
func Parse(ct string, body []byte) (Report, error) {
	mt, params, err := mime.ParseMediaType(ct)
	if err != nil {
		return Report{}, malformed("content type %q: %v", ct, err)
	}
	switch {
	case mt == "application/json":
		return parseJSON(body)
	case mt == "multipart/report":
		return parseMultipart(params, body)
	case mt == "message/rfc822":
		return parseMail(body)
	}
	return Report{}, malformed("content type %q is none of application/json, multipart/report, message/rfc822", mt)
}

// parseJSON reads {messageId, type: bounce|complaint, reason}.
func parseJSON(body []byte) (Report, error) {
	var in struct {
		MessageID string `json:"messageId"`
		Type      string `json:"type"`
		Reason    string `json:"reason"`
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		return Report{}, malformed("JSON: %v", err)
	}
	if in.Type != Bounce && in.Type != Complaint {
		return Report{}, malformed("type must be bounce or complaint")
	}
	return Report{MessageID: in.MessageID, Type: in.Type, Reason: clip(in.Reason)}, nil
}

// parseMail reads a whole report mail: its body is the multipart/report.
func parseMail(body []byte) (Report, error) {
	msg, err := mail.ReadMessage(bytes.NewReader(body))
	if err != nil {
		return Report{}, malformed("mail: %v", err)
	}
	mt, params, err := mime.ParseMediaType(msg.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/report" {
		return Report{}, malformed("the mail is not a multipart/report")
	}
	rest, err := readAll(msg.Body)
	if err != nil {
		return Report{}, err
	}
	return parseMultipart(params, rest)
}

func clip(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > MaxReason {
		s = s[:MaxReason]
	}
	return s
}
