// Package reportstest holds samples of the report formats the bounce
// intake reads, for the tests of the parser and of the intake.
package reportstest

import "strings"

// crlf turns a readable sample into the CRLF lines of mail.
func crlf(s string) string { return strings.ReplaceAll(strings.TrimLeft(s, "\n"), "\n", "\r\n") }

// DSN is an RFC 3464 bounce of the mail with Message-ID id (a sample of
// the format, as Postfix writes it).
func DSN(id, action string) (contentType, body string) {
	return `multipart/report; report-type=delivery-status; boundary="B1"`, crlf(`
--B1
Content-Type: text/plain; charset=us-ascii

This is the mail system at host mx.example.net. Your message could not be delivered.

--B1
Content-Type: message/delivery-status

Reporting-MTA: dns; mx.example.net
Arrival-Date: Fri, 27 Nov 2026 10:00:00 +0000

Final-Recipient: rfc822; nobody@example.org
Original-Recipient: rfc822;nobody@example.org
Action: ` + action + `
Status: 5.1.1
Remote-MTA: dns; mail.example.org
Diagnostic-Code: smtp; 550 5.1.1 <nobody@example.org>: Recipient address rejected

--B1
Content-Type: text/rfc822-headers

From: news@example.com
To: nobody@example.org
Subject: Our news
Message-ID: <` + id + `>
--B1--
`)
}

// ARF is an RFC 5965 abuse report about the mail with Message-ID id.
func ARF(id string) (contentType, body string) {
	return `multipart/report; report-type=feedback-report; boundary="A1"`, crlf(`
--A1
Content-Type: text/plain; charset="US-ASCII"

This is an email abuse report for an email message received from IP 192.0.2.1.

--A1
Content-Type: message/feedback-report

Feedback-Type: abuse
User-Agent: SomeGenerator/1.0
Version: 1

--A1
Content-Type: message/rfc822
Content-Disposition: inline

From: <news@example.com>
To: <someone@example.org>
Subject: Our news
Message-ID: <` + id + `>
Date: Fri, 27 Nov 2026 10:00:00 +0000

Hello
--A1--
`)
}

// Mail wraps a multipart/report into the whole mail a provider forwards.
func Mail(contentType, body string) string {
	return crlf(`
From: MAILER-DAEMON@mx.example.net
To: bounces@example.com
Subject: Undelivered Mail Returned to Sender
MIME-Version: 1.0
Content-Type: `+contentType+`

`) + body
}
