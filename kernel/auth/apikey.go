package auth

import (
	"context"
	"strings"
)

// APIKeyPrefix starts every API key, so the verifier tells a key from a
// JWT (which starts with "eyJ") before parsing anything, and secret
// scanners recognise a leaked key.
const APIKeyPrefix = "plk_"

// APIKeys checks long-lived API keys (module config keeps them). Like
// Verify, it answers an error wrapping ErrInvalidToken for every key that
// must not be accepted (unknown, revoked, expired) and any other error
// when the keys cannot be read.
type APIKeys interface {
	VerifyAPIKey(ctx context.Context, raw string) (*Principal, error)
}

// IsAPIKey reports whether a bearer credential has the form of an API key.
func IsAPIKey(raw string) bool { return strings.HasPrefix(raw, APIKeyPrefix) }
