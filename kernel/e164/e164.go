// Package e164 checks phone numbers written in E.164 form (+4915112345678)
// with libphonenumber's metadata, not a regular expression.
package e164

import (
	"strings"

	"github.com/nyaruka/phonenumbers"
)

// Valid says whether s is a valid phone number written exactly in E.164
// form.
func Valid(s string) bool {
	if !strings.HasPrefix(s, "+") || len(s) > 16 {
		return false
	}
	n, err := phonenumbers.Parse(s, "")
	if err != nil || !phonenumbers.IsValidNumber(n) {
		return false
	}
	return phonenumbers.Format(n, phonenumbers.E164) == s
}
