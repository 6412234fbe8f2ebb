package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"strconv"
	"strings"
)

// Headers the platform sets on every delivery; tenant headers never
// override them.
const (
	HeaderSignature = "X-Platform-Signature"
	HeaderEvent     = "X-Platform-Event"
	HeaderDelivery  = "X-Platform-Delivery"
	HeaderSWID      = "webhook-id"
	HeaderSWTime    = "webhook-timestamp"
	HeaderSWSig     = "webhook-signature"
)

// standardPrefix marks a secret in the Standard Webhooks form.
const standardPrefix = "whsec_"

// Signature is X-Platform-Signature: "sha256=" and the lowercase hex
// HMAC-SHA256 of the raw body, keyed with the secret's bytes.
func Signature(secret string, body []byte) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write(body)
	return "sha256=" + hex.EncodeToString(m.Sum(nil))
}

// StandardKey is the HMAC key of the Standard Webhooks signature. The
// Standard Webhooks spec keys it with the base64-decoded part of a
// "whsec_<base64>" secret; a secret in that form is used that way, so a
// receiver passes the very same secret to its Standard Webhooks library.
// Any other secret is used as its UTF-8 bytes, the same key as
// X-Platform-Signature: the receiver passes "whsec_" + base64(secret) to
// the library (or the secret itself with the library's raw-key option).
func StandardKey(secret string) []byte {
	if rest, ok := strings.CutPrefix(secret, standardPrefix); ok {
		if k, err := base64.StdEncoding.DecodeString(rest); err == nil && len(k) > 0 {
			return k
		}
	}
	return []byte(secret)
}

// StandardSignature is webhook-signature: "v1," and the base64 HMAC-SHA256
// of "<id>.<unix seconds>.<body>" keyed with StandardKey(secret).
func StandardSignature(secret, id string, unix int64, body []byte) string {
	m := hmac.New(sha256.New, StandardKey(secret))
	m.Write([]byte(id + "." + strconv.FormatInt(unix, 10) + "."))
	m.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(m.Sum(nil))
}
