// Package masterkey parses the text form of the credential master key
// (PLATFORM_MASTER_KEY, <data>/master.key). It imports nothing of the
// platform, so package config can validate the setting with the same rules
// package credentials uses.
package masterkey

import (
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
)

// Size is the length of a master key in bytes (AES-256 and HMAC-SHA256 keys
// are derived from it).
const Size = 32

// Parse decodes a master key given as 64 hexadecimal characters or as
// base64 (standard or URL alphabet, padded or not) of 32 bytes. Errors never
// repeat the value.
func Parse(s string) ([]byte, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, errors.New("empty master key")
	}
	if len(s) == 2*Size {
		if b, err := hex.DecodeString(s); err == nil {
			return b, nil
		}
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		b, err := enc.DecodeString(s)
		if err != nil {
			continue
		}
		if len(b) != Size {
			return nil, fmt.Errorf("want %d bytes, the value decodes to %d (generate a key with: openssl rand -base64 32)", Size, len(b))
		}
		return b, nil
	}
	return nil, fmt.Errorf("want %d bytes as base64 or as %d hexadecimal characters (generate a key with: openssl rand -base64 32)", Size, 2*Size)
}

// Encode is the text form of a key (standard base64).
func Encode(key []byte) string { return base64.StdEncoding.EncodeToString(key) }
