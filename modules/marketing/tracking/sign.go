// Package tracking signs and reads the public links of the platform's
// mail: the open pixel, click redirects and unsubscribe links served at
// {tracking_url}, and the Message-ID that ties a bounce report to its mail
// log. Every link carries an HMAC over what it names, so the service
// answers a forged or altered link with 404 and never redirects anywhere
// the platform did not write into a mail.
package tracking

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"platform/kernel/store"
)

// KeyCollection holds the installation's link-signing key (global): every
// replica signs and verifies with the same one.
const KeyCollection = "platformsecrets"

const keyID = "mail-tracking"

// Signer makes and checks signed links under Base ({tracking_url}).
type Signer struct {
	Base string // absolute base URL without a trailing slash, e.g. https://gw.example.com/t
	Key  []byte // at least 32 bytes
}

// LoadKey returns the installation's signing key, creating it on first use;
// replicas racing to create it all end with the one stored first.
func LoadKey(ctx context.Context, st store.Store) ([]byte, error) {
	fresh := make([]byte, 32)
	if _, err := rand.Read(fresh); err != nil {
		return nil, err
	}
	doc, err := st.Global(KeyCollection).Upsert(ctx, keyID, store.Update{
		SetOnInsert: store.Doc{"key": base64.RawStdEncoding.EncodeToString(fresh)},
	})
	if err != nil {
		return nil, fmt.Errorf("tracking: key: %w", err)
	}
	s, _ := doc["key"].(string)
	key, err := base64.RawStdEncoding.DecodeString(s)
	if err != nil || len(key) < 32 {
		return nil, errors.New("tracking: the stored key is damaged")
	}
	return key, nil
}

// Sign is the signature of parts: 128 bits of HMAC-SHA256, URL-safe.
func (s Signer) Sign(parts ...string) string {
	m := hmac.New(sha256.New, s.Key)
	for _, p := range parts {
		// Length-prefixed, so ("ab","c") and ("a","bc") differ.
		fmt.Fprintf(m, "%d:%s|", len(p), p)
	}
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil)[:16])
}

// Verify reports whether sig is the signature of parts, in constant time.
func (s Signer) Verify(sig string, parts ...string) bool {
	return hmac.Equal([]byte(sig), []byte(s.Sign(parts...)))
}

// Kinds of tracking link, the first path segment after Base.
const (
	KindOpen        = "o"
	KindClick       = "c"
	KindUnsubscribe = "u"
)

// Pixel is the open pixel of one mail log of a customer.
func (s Signer) Pixel(customer, logID string) string {
	return fmt.Sprintf("%s/%s/%s/%s/%s.gif", s.Base, KindOpen, customer, logID, s.Sign(KindOpen, customer, logID))
}

// Click is the redirect to target through the tracking service.
func (s Signer) Click(customer, logID, target string) string {
	return fmt.Sprintf("%s/%s/%s/%s/%s?u=%s", s.Base, KindClick, customer, logID,
		s.Sign(KindClick, customer, logID, target), url.QueryEscape(target))
}

// Unsubscribe is the opt-out link of a consumer for mail sent by the
// newsletter (recorded on the consumer, so every later send skips them).
func (s Signer) Unsubscribe(customer, consumer, newsletter string) string {
	return fmt.Sprintf("%s/%s/%s/%s/%s/%s", s.Base, KindUnsubscribe, customer, consumer, newsletter,
		s.Sign(KindUnsubscribe, customer, consumer, newsletter))
}

// MessageID is the Message-ID of the mail of a mail log, without angle
// brackets; bounce and complaint reports quote it back.
func MessageID(customer, logID, host string) string {
	return fmt.Sprintf("%s.%s@%s", logID, customer, host)
}

// ParseMessageID reads the customer and mail log back from a Message-ID
// (with or without angle brackets); ok is false for any other id.
func ParseMessageID(id string) (customer, logID string, ok bool) {
	id = strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(id), "<"), ">")
	local, _, found := strings.Cut(id, "@")
	if !found {
		return "", "", false
	}
	logID, customer, found = strings.Cut(local, ".")
	if !found || !store.ValidID(logID) || !store.ValidID(customer) {
		return "", "", false
	}
	return customer, logID, true
}
