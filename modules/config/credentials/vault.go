// Package credentials keeps the customers' credentials (API keys, OAuth
// tokens, SMTP passwords) encrypted at rest (spec: Config, Credentials;
// "Secrets handled by the service").
//
// Scheme (docs/decisions.md, "Credential encryption"): one 32-byte master
// key per installation (PLATFORM_MASTER_KEY, or <data>/master.key for the
// embedded store). Each customer gets its own AES-256 key and HMAC-SHA256
// key, derived from the master key with HKDF-SHA256 under info strings that
// name the customer. A credential is sealed as {v, iv, ct, tag}: the JSON of
// the clear values, padded, encrypted with AES-256-CTR under a random
// 16-byte IV, then authenticated (encrypt-then-MAC) over the version, the
// customer, the record id, the IV and the ciphertext. A sealed value copied
// to another record or customer, or altered in any byte, does not open.
package credentials

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sync/atomic"

	"platform/kernel/settings"
	"platform/kernel/store"
)

// Version is the sealing scheme written into every sealed value (field v).
const Version = 1

// KeySize is the length of the master key in bytes.
const KeySize = settings.MasterKeySize

const (
	ivSize  = aes.BlockSize // 16
	tagSize = sha256.Size   // 32
	// padBlock: the clear JSON is padded with spaces to a multiple of it, so
	// the ciphertext length tells little about a secret's length.
	padBlock = 64
	// hkdfSalt separates these keys from any other use of the master key.
	hkdfSalt = "platform/credentials/hkdf-salt/v1"
)

var (
	// ErrMalformed: the value is not a sealed credential of a known version.
	ErrMalformed = errors.New("credentials: not a sealed value of a known version")
	// ErrAuth: the value does not authenticate: it was altered, moved to
	// another record or customer, or sealed under another master key.
	ErrAuth = errors.New("credentials: sealed value does not authenticate (altered, moved to another record or customer, or sealed under another master key)")
	// ErrNoMasterKey: no master key is configured (a nil *Vault), so nothing
	// can be sealed or opened.
	ErrNoMasterKey = errors.New("credentials: no master key: set PLATFORM_MASTER_KEY (32 random bytes as base64 or 64 hex characters, the same for every api and worker process)")
)

// Vault seals and opens credentials with keys derived from the master key.
// It is safe for concurrent use. A nil *Vault answers ErrNoMasterKey.
//
// During a master key rotation a vault holds more than one key: it seals
// with its current key and opens values sealed under any of them
// (docs/config-keys.md). Rotate moves a running vault to a new key.
type Vault struct {
	keys  atomic.Pointer[keyset]
	noted atomic.Bool // NoteSealed has recorded the key in the store
}

// keyset is the current key and the keys only opened with.
type keyset struct {
	current *masterKey
	accept  []*masterKey
}

// masterKey is one master key and its id.
type masterKey struct {
	secret []byte
	id     string
}

func newMasterKey(secret []byte) (*masterKey, error) {
	if len(secret) != KeySize {
		return nil, fmt.Errorf("credentials: master key must be %d bytes, got %d", KeySize, len(secret))
	}
	k := &masterKey{secret: bytes.Clone(secret)}
	m := hmac.New(sha256.New, k.secret)
	m.Write([]byte("platform/credentials/key-id/v1"))
	k.id = hex.EncodeToString(m.Sum(nil)[:16])
	return k, nil
}

// NewVault returns a vault that seals with master (32 bytes, see
// ParseMasterKey) and also opens values sealed under the accepted keys.
func NewVault(master []byte, accept ...[]byte) (*Vault, error) {
	cur, err := newMasterKey(master)
	if err != nil {
		return nil, err
	}
	ks := &keyset{current: cur}
	for _, a := range accept {
		k, err := newMasterKey(a)
		if err != nil {
			return nil, err
		}
		if k.id != cur.id {
			ks.accept = append(ks.accept, k)
		}
	}
	v := &Vault{}
	v.keys.Store(ks)
	return v, nil
}

// Rotate makes next the key the vault seals with; the keys it held stay
// accepted for opening. A running process uses it when the operator
// rotates the key of the embedded store (platform rotate-master-key).
func (v *Vault) Rotate(next []byte) error {
	if v == nil {
		return ErrNoMasterKey
	}
	k, err := newMasterKey(next)
	if err != nil {
		return err
	}
	old := v.keys.Load()
	ks := &keyset{current: k}
	for _, a := range append([]*masterKey{old.current}, old.accept...) {
		if a.id != k.id {
			ks.accept = append(ks.accept, a)
		}
	}
	v.keys.Store(ks)
	v.noted.Store(false) // the store must learn that this key seals now
	return nil
}

// KeyID identifies the key the vault seals with, without revealing it (a
// truncated HMAC of a constant), so processes can tell whether they share
// one key.
func (v *Vault) KeyID() string {
	if v == nil {
		return ""
	}
	return v.keys.Load().current.id
}

// KeyIDs lists the ids of every key the vault opens with, the current
// one first.
func (v *Vault) KeyIDs() []string {
	if v == nil {
		return nil
	}
	ks := v.keys.Load()
	out := []string{ks.current.id}
	for _, k := range ks.accept {
		out = append(out, k.id)
	}
	return out
}

// ParseMasterKey decodes a master key given as 64 hexadecimal characters or
// as base64 (standard or URL alphabet, padded or not) of 32 bytes. Errors
// never repeat the value.
func ParseMasterKey(s string) ([]byte, error) { return settings.ParseMasterKey(s) }

// EncodeMasterKey is the text form of a master key (standard base64), as
// written to master.key and accepted by PLATFORM_MASTER_KEY.
func EncodeMasterKey(master []byte) string { return settings.EncodeMasterKey(master) }

// NewMasterKey returns a fresh random master key.
func NewMasterKey() []byte {
	b := make([]byte, KeySize)
	rand.Read(b) // never fails (crypto/rand panics rather than return short)
	return b
}

// customerKeys derives the customer's encryption and MAC keys.
func (k *masterKey) customerKeys(customer string) (enc, mac []byte, err error) {
	if customer == "" {
		return nil, nil, errors.New("credentials: customer is required")
	}
	enc, err = hkdf.Key(sha256.New, k.secret, []byte(hkdfSalt), "platform/credentials/v1/aes-256-ctr/customer:"+customer, 32)
	if err != nil {
		return nil, nil, err
	}
	mac, err = hkdf.Key(sha256.New, k.secret, []byte(hkdfSalt), "platform/credentials/v1/hmac-sha256/customer:"+customer, 32)
	return enc, mac, err
}

// Seal encrypts plain for one record of one customer and returns the stored
// form {v: 1, iv, ct, tag} (base64 strings).
func (v *Vault) Seal(customer, recordID string, plain map[string]any) (store.Doc, error) {
	if v == nil {
		return nil, ErrNoMasterKey
	}
	if recordID == "" {
		return nil, errors.New("credentials: record id is required")
	}
	encKey, macKey, err := v.keys.Load().current.customerKeys(customer)
	if err != nil {
		return nil, err
	}
	text, err := json.Marshal(plain)
	if err != nil {
		return nil, fmt.Errorf("credentials: values cannot be encoded: %w", err)
	}
	// JSON allows trailing white space: padding needs no length field.
	if r := len(text) % padBlock; r != 0 {
		text = append(text, bytes.Repeat([]byte{' '}, padBlock-r)...)
	}
	iv := make([]byte, ivSize)
	rand.Read(iv)
	ct := make([]byte, len(text))
	ctr(encKey, iv).XORKeyStream(ct, text)
	clear(text) // best effort: the caller's strings stay until collected
	tag := mac(macKey, Version, customer, recordID, iv, ct)
	return store.Doc{
		"v":   int64(Version),
		"iv":  base64.StdEncoding.EncodeToString(iv),
		"ct":  base64.StdEncoding.EncodeToString(ct),
		"tag": base64.StdEncoding.EncodeToString(tag),
	}, nil
}

// Open verifies sealed (in constant time, before decrypting anything) for
// that customer and record, and returns the clear values. Integers come
// back as int64 and other numbers as float64, as the store keeps them.
// The current key is tried first, then the accepted ones.
func (v *Vault) Open(customer, recordID string, sealed store.Doc) (map[string]any, error) {
	if v == nil {
		return nil, ErrNoMasterKey
	}
	ks := v.keys.Load()
	out, err := ks.current.open(customer, recordID, sealed)
	for _, k := range ks.accept {
		if !errors.Is(err, ErrAuth) {
			break
		}
		out, err = k.open(customer, recordID, sealed)
	}
	return out, err
}

// SealedWithCurrent reports whether sealed authenticates under the key
// the vault seals with (a rotation leaves such values as they are).
func (v *Vault) SealedWithCurrent(customer, recordID string, sealed store.Doc) bool {
	if v == nil {
		return false
	}
	_, _, _, err := v.keys.Load().current.verify(customer, recordID, sealed)
	return err == nil
}

func (k *masterKey) open(customer, recordID string, sealed store.Doc) (map[string]any, error) {
	encKey, iv, ct, err := k.verify(customer, recordID, sealed)
	if err != nil {
		return nil, err
	}
	text := make([]byte, len(ct))
	ctr(encKey, iv).XORKeyStream(text, ct)
	defer clear(text)
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.UseNumber()
	var out map[string]any
	if err := dec.Decode(&out); err != nil || out == nil {
		// Authenticated but not a JSON object: not written by Seal.
		return nil, ErrMalformed
	}
	return numbers(out).(map[string]any), nil
}

// verify checks sealed's tag under k and answers what decrypting needs.
func (k *masterKey) verify(customer, recordID string, sealed store.Doc) (encKey, iv, ct []byte, err error) {
	ver, iv, ct, tag, err := parseSealed(sealed)
	if err != nil {
		return nil, nil, nil, err
	}
	encKey, macKey, err := k.customerKeys(customer)
	if err != nil {
		return nil, nil, nil, err
	}
	if !hmac.Equal(tag, mac(macKey, ver, customer, recordID, iv, ct)) {
		return nil, nil, nil, ErrAuth
	}
	return encKey, iv, ct, nil
}

func parseSealed(sealed store.Doc) (ver int64, iv, ct, tag []byte, err error) {
	if sealed == nil {
		return 0, nil, nil, nil, ErrMalformed
	}
	switch n := sealed["v"].(type) {
	case int64:
		ver = n
	case int32:
		ver = int64(n)
	case int:
		ver = int64(n)
	case float64:
		ver = int64(n)
		if float64(ver) != n {
			return 0, nil, nil, nil, ErrMalformed
		}
	default:
		return 0, nil, nil, nil, ErrMalformed
	}
	if ver != Version {
		return 0, nil, nil, nil, ErrMalformed
	}
	field := func(name string) []byte {
		s, _ := sealed[name].(string)
		b, e := base64.StdEncoding.DecodeString(s)
		if e != nil || s == "" {
			err = ErrMalformed
		}
		return b
	}
	iv, ct, tag = field("iv"), field("ct"), field("tag")
	if err != nil || len(iv) != ivSize || len(tag) != tagSize {
		return 0, nil, nil, nil, ErrMalformed
	}
	return ver, iv, ct, tag, nil
}

func ctr(key, iv []byte) cipher.Stream {
	block, err := aes.NewCipher(key)
	if err != nil {
		panic(err) // the key is always 32 bytes
	}
	return cipher.NewCTR(block, iv)
}

// mac is HMAC-SHA256 over an unambiguous encoding of the version, the
// customer, the record id, the IV and the ciphertext: every variable-length
// part is preceded by its length.
func mac(key []byte, ver int64, customer, recordID string, iv, ct []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte("platform/credentials/seal"))
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(ver))
	m.Write(n[:])
	for _, part := range [][]byte{[]byte(customer), []byte(recordID), iv, ct} {
		binary.BigEndian.PutUint64(n[:], uint64(len(part)))
		m.Write(n[:])
		m.Write(part)
	}
	return m.Sum(nil)
}

// numbers turns json.Number into int64 or float64, as the API stores them.
func numbers(v any) any {
	switch x := v.(type) {
	case json.Number:
		return store.JSONNumber(x)
	case map[string]any:
		for k, e := range x {
			x[k] = numbers(e)
		}
		return x
	case []any:
		for i, e := range x {
			x[i] = numbers(e)
		}
		return x
	}
	return v
}
