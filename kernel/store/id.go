package store

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"platform/kernel/query"
	"sync/atomic"
	"time"
)

var (
	idProcess [5]byte
	idCounter atomic.Uint32
)

func init() {
	_, _ = rand.Read(idProcess[:])
	var b [4]byte
	_, _ = rand.Read(b[:])
	idCounter.Store(binary.BigEndian.Uint32(b[:]))
}

// NewID returns a new ObjectId in its 24-character hexadecimal form: 4 bytes
// of seconds, 5 random bytes per process, a 3-byte counter (as MongoDB does),
// so ids sort roughly by creation time.
func NewID() string {
	var b [12]byte
	binary.BigEndian.PutUint32(b[0:4], uint32(time.Now().Unix()))
	copy(b[4:9], idProcess[:])
	c := idCounter.Add(1)
	b[9], b[10], b[11] = byte(c>>16), byte(c>>8), byte(c)
	return hex.EncodeToString(b[:])
}

// ValidID reports whether s is a 24-character hexadecimal ObjectId.
func ValidID(s string) bool { return query.ValidID(s) }
