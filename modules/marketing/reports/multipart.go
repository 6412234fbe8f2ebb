package reports

import (
	"bufio"
	"bytes"
	"io"
	"mime"
	"mime/multipart"
	"net/mail"
	"net/textproto"
	"strings"
)

// maxParts bounds the parts read of one report (a DSN or ARF has three).
const maxParts = 8

// maxPart bounds the bytes read of one part.
const maxPart = 1 << 20

// parts of a multipart/report that matter.
type parts struct {
	status   []textproto.MIMEHeader // message/delivery-status blocks, or the feedback-report
	original textproto.MIMEHeader   // headers of the original mail
}

// parseMultipart reads a multipart/report of report-type delivery-status
// (RFC 3464) or feedback-report (RFC 5965).
func parseMultipart(params map[string]string, body []byte) (Report, error) {
	kind := strings.ToLower(params["report-type"])
	if kind != "delivery-status" && kind != "feedback-report" {
		return Report{}, malformed("report-type %q is neither delivery-status nor feedback-report", params["report-type"])
	}
	if params["boundary"] == "" {
		return Report{}, malformed("multipart/report without a boundary")
	}
	p, err := readParts(multipart.NewReader(bytes.NewReader(body), params["boundary"]))
	if err != nil {
		return Report{}, err
	}
	if p.original == nil {
		return Report{}, malformed("the report holds no headers of the original mail")
	}
	r := Report{MessageID: p.original.Get("Message-Id")}
	if kind == "delivery-status" {
		r.Type, r.Reason = bounceOf(p.status)
	} else {
		r.Type, r.Reason = complaintOf(p.status)
	}
	return r, nil
}

func readParts(mr *multipart.Reader) (parts, error) {
	var p parts
	for i := 0; i < maxParts; i++ {
		part, err := mr.NextPart()
		if err == io.EOF {
			return p, nil
		}
		if err != nil {
			return p, malformed("multipart: %v", err)
		}
		data, err := readAll(part)
		if err != nil {
			return p, err
		}
		mt, _, _ := mime.ParseMediaType(part.Header.Get("Content-Type"))
		switch mt {
		case "message/delivery-status", "message/feedback-report":
			p.status = headerBlocks(data)
		case "message/rfc822", "text/rfc822-headers", "message/rfc822-headers":
			p.original = headersOf(data)
		}
	}
	return p, nil
}

func readAll(r io.Reader) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxPart+1))
	if err != nil {
		return nil, malformed("read: %v", err)
	}
	if len(data) > maxPart {
		return nil, malformed("a part is larger than %d bytes", maxPart)
	}
	return data, nil
}

// headerBlocks reads the blank-line separated field blocks of a
// delivery-status (per message, then per recipient) or feedback report.
func headerBlocks(data []byte) []textproto.MIMEHeader {
	r := textproto.NewReader(bufio.NewReader(bytes.NewReader(data)))
	var out []textproto.MIMEHeader
	for i := 0; i < 100; i++ {
		h, err := r.ReadMIMEHeader()
		if len(h) > 0 {
			out = append(out, h)
		}
		if err != nil {
			return out
		}
	}
	return out
}

// headersOf reads the headers of the original mail (a whole mail, or its
// headers alone, which may lack the blank line that ends them).
func headersOf(data []byte) textproto.MIMEHeader {
	msg, err := mail.ReadMessage(io.MultiReader(bytes.NewReader(data), strings.NewReader("\r\n\r\n")))
	if err != nil {
		return nil
	}
	return textproto.MIMEHeader(msg.Header)
}

// bounceOf is the bounce of a DSN: its first recipient whose Action is
// failed, with its Status and Diagnostic-Code; no bounce when none failed
// (a delayed, delivered, relayed or expanded notice).
func bounceOf(blocks []textproto.MIMEHeader) (string, string) {
	for _, b := range blocks {
		if strings.EqualFold(strings.TrimSpace(b.Get("Action")), "failed") {
			return Bounce, clip(strings.TrimSpace(b.Get("Status") + " " + b.Get("Diagnostic-Code")))
		}
	}
	return "", ""
}

// complaintOf is the complaint of a feedback report; not-spam is none.
func complaintOf(blocks []textproto.MIMEHeader) (string, string) {
	for _, b := range blocks {
		ft := strings.TrimSpace(b.Get("Feedback-Type"))
		if ft == "" {
			continue
		}
		if strings.EqualFold(ft, "not-spam") {
			return "", ""
		}
		return Complaint, clip("feedback-type " + ft)
	}
	return Complaint, "feedback report"
}
