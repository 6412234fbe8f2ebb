// Package apikeys keeps the customers' long-lived API keys for
// server-to-server calls and checks them for the API's one verifier
// (auth.Verifier hands every bearer credential starting with
// auth.APIKeyPrefix to Keys.VerifyAPIKey).
//
// A key is "plk_" and 43 characters of base64url (256 random bits). The
// store keeps only its SHA-256: a key is random and long, so a fast hash
// is as safe as a slow one (a slow hash such as bcrypt protects guessable
// passwords, and would cost every API call tens of milliseconds).
//
// Lookups: the global collection IndexCollection maps a key's hash to its
// customer and record, as the client index does for apps; the record in
// the customer's Collection says whether the key is active, until when,
// with which scopes and who created it.
package apikeys

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"

	"platform/kernel/auth"
)

// Collections and fields.
const (
	// Collection holds the key records (per customer).
	Collection = "apikeys"
	// IndexCollection (global) maps a key hash (_id) to customer and key.
	IndexCollection = "apikeyindex"
	// FieldHash is the stored SHA-256 of the key (hex); never shown.
	FieldHash = "keyHash"
	// FieldCreatorUser and FieldCreatorClient name who created the key:
	// the principal a key acts as carries them.
	FieldCreatorUser   = "creatorUser"
	FieldCreatorClient = "creatorClient"
)

// Key states (_status).
const (
	StatusActive  = "active"
	StatusRevoked = "revoked"
)

// secretBytes is the key's entropy: 256 bits.
const secretBytes = 32

// keyLen is the length of every key New returns.
var keyLen = len(auth.APIKeyPrefix) + base64.RawURLEncoding.EncodedLen(secretBytes)

// DisplayLen is how much of a key is kept in clear (field prefix) so a
// person can tell keys apart: "plk_" and 8 characters (48 bits), too few
// to help a guess of the other 210.
const DisplayLen = 12

// New returns a fresh key and its hash.
func New() (key, hash string) {
	b := make([]byte, secretBytes)
	rand.Read(b) // never fails
	key = auth.APIKeyPrefix + base64.RawURLEncoding.EncodeToString(b)
	return key, Hash(key)
}

// Hash is the stored form of a key: SHA-256, hexadecimal.
func Hash(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}

// wellFormed reports whether raw could be a key New made, so garbage is
// refused without a store read.
func wellFormed(raw string) bool {
	if len(raw) != keyLen || !auth.IsAPIKey(raw) {
		return false
	}
	_, err := base64.RawURLEncoding.DecodeString(raw[len(auth.APIKeyPrefix):])
	return err == nil
}
