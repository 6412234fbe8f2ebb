package reports_test

import (
	"errors"
	"testing"

	"platform/modules/marketing/reports"
	"platform/modules/marketing/reports/reportstest"
)

const id = "6565a1b2c3d4e5f6a7b8c9d0.6565a1b2c3d4e5f6a7b8c9d1@mail.example.com"

func TestParse(t *testing.T) {
	dsnCT, dsn := reportstest.DSN(id, "failed")
	delayCT, delayed := reportstest.DSN(id, "delayed")
	arfCT, arf := reportstest.ARF(id)
	cases := []struct {
		name, ct, body string
		want           reports.Report
	}{
		{"json", "application/json", `{"messageId":"<` + id + `>","type":"bounce","reason":"mailbox full"}`, reports.Report{"<" + id + ">", reports.Bounce, "mailbox full"}},
		{"dsn", dsnCT, dsn, reports.Report{"<" + id + ">", reports.Bounce, "5.1.1 smtp; 550 5.1.1 <nobody@example.org>: Recipient address rejected"}},
		{"delayed dsn", delayCT, delayed, reports.Report{"<" + id + ">", "", ""}},
		{"arf", arfCT, arf, reports.Report{"<" + id + ">", reports.Complaint, "feedback-type abuse"}},
		{"dsn mail", "message/rfc822", reportstest.Mail(dsnCT, dsn), reports.Report{"<" + id + ">", reports.Bounce, "5.1.1 smtp; 550 5.1.1 <nobody@example.org>: Recipient address rejected"}},
		{"arf mail", "message/rfc822", reportstest.Mail(arfCT, arf), reports.Report{"<" + id + ">", reports.Complaint, "feedback-type abuse"}},
	}
	for _, c := range cases {
		got, err := reports.Parse(c.ct, []byte(c.body))
		if err != nil || got != c.want {
			t.Errorf("%s: got %+v, %v; want %+v", c.name, got, err, c.want)
		}
	}
}

func TestParseRefuses(t *testing.T) {
	for name, c := range map[string][2]string{
		"text":            {"text/plain", "hello"},
		"json type":       {"application/json", `{"messageId":"x","type":"opened"}`},
		"json extra":      {"application/json", `{"messageId":"x","type":"bounce","to":"a"}`},
		"report type":     {`multipart/report; report-type=disposition-notification; boundary="B"`, "--B--"},
		"no original":     {`multipart/report; report-type=delivery-status; boundary="B"`, "--B\r\nContent-Type: text/plain\r\n\r\nhi\r\n--B--\r\n"},
		"mail not report": {"message/rfc822", "Subject: hi\r\nContent-Type: text/plain\r\n\r\nhello"},
	} {
		if _, err := reports.Parse(c[0], []byte(c[1])); !errors.Is(err, reports.ErrMalformed) {
			t.Errorf("%s: err = %v, want ErrMalformed", name, err)
		}
	}
}
