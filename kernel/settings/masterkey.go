package settings

// The text form of the credential master key (PLATFORM_MASTER_KEY,
// <data>/master.key): parsed here, so that the setting is validated with
// the same rules package credentials uses.

import (
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
)

// MasterKeySize is the length of a master key in bytes (AES-256 and HMAC-SHA256 keys
// are derived from it).
const MasterKeySize = 32

// ParseMasterKey decodes a master key given as 64 hexadecimal characters or as
// base64 (standard or URL alphabet, padded or not) of 32 bytes. Errors never
// repeat the value.
func ParseMasterKey(s string) ([]byte, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, errors.New("empty master key")
	}
	if len(s) == 2*MasterKeySize {
		if b, err := hex.DecodeString(s); err == nil {
			return b, nil
		}
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		b, err := enc.DecodeString(s)
		if err != nil {
			continue
		}
		if len(b) != MasterKeySize {
			return nil, fmt.Errorf("want %d bytes, the value decodes to %d (generate a key with: openssl rand -base64 32)", MasterKeySize, len(b))
		}
		return b, nil
	}
	return nil, fmt.Errorf("want %d bytes as base64 or as %d hexadecimal characters (generate a key with: openssl rand -base64 32)", MasterKeySize, 2*MasterKeySize)
}

// EncodeMasterKey is the text form of a key (standard base64).
func EncodeMasterKey(key []byte) string { return base64.StdEncoding.EncodeToString(key) }

func masterKeySettings() []setting {
	return []setting{
		{"PLATFORM_ACCEPT_LOST_MASTER_KEY", "accept-lost-master-key", "false", "start although the master key cannot open the values the store holds sealed (its master.key or PLATFORM_MASTER_KEY was lost): they are given up and must be set again (docs/config-keys.md); without it such a start is refused", func(c *Config, v string) (err error) {
			c.AcceptLostMasterKey, err = boolean(v)
			return
		}},
	}
}

// boolSettings may be given as a bare flag (--accept-lost-master-key).
var boolSettings = map[string]bool{"PLATFORM_ACCEPT_LOST_MASTER_KEY": true}
