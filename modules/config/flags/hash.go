package flags

import (
	"encoding/binary"
	"math/bits"
	"strconv"
)

// Buckets is how many buckets a percentage rollout divides the keys into:
// one bucket is 0.01 %, so weights may have two decimals.
const Buckets = 10000

// Separator joins the flag key and the bucket key's value in the hashed
// text, as Unleash joins group and user ("group:user"). Flag keys cannot
// contain it, so two pairs never hash the same text.
const Separator = ":"

// Bucket is the rollout bucket of a bucket key's value for a flag:
// MurmurHash3 x86 32-bit, seed 0, of the UTF-8 text
// "<flagKey>:<value>", modulo Buckets. Salting with the flag key makes
// the rollouts of different flags independent of each other.
func Bucket(flagKey, value string) int {
	return int(Murmur3([]byte(flagKey+Separator+value), 0) % Buckets)
}

// Murmur3 is MurmurHash3 x86 32-bit (Austin Appleby's reference
// MurmurHash3_x86_32): blocks of four bytes read little-endian.
func Murmur3(data []byte, seed uint32) uint32 {
	const c1, c2 = 0xcc9e2d51, 0x1b873593
	h := seed
	n := len(data) / 4 * 4
	for i := 0; i < n; i += 4 {
		k := binary.LittleEndian.Uint32(data[i:])
		h ^= mixK(k, c1, c2)
		h = bits.RotateLeft32(h, 13)*5 + 0xe6546b64
	}
	var k uint32
	switch len(data) - n {
	case 3:
		k ^= uint32(data[n+2]) << 16
		fallthrough
	case 2:
		k ^= uint32(data[n+1]) << 8
		fallthrough
	case 1:
		k ^= uint32(data[n])
		h ^= mixK(k, c1, c2)
	}
	h ^= uint32(len(data))
	return fmix32(h)
}

func mixK(k, c1, c2 uint32) uint32 {
	k *= c1
	k = bits.RotateLeft32(k, 15)
	return k * c2
}

// fmix32 is the finalizer that spreads every input bit over the hash.
func fmix32(h uint32) uint32 {
	h ^= h >> 16
	h *= 0x85ebca6b
	h ^= h >> 13
	h *= 0xc2b2ae35
	h ^= h >> 16
	return h
}

// bucketValue is the text of a context value that rollouts hash: a string
// as it is, a whole number in decimal. Other values (and a missing key)
// give no bucket: the rollout rule is then skipped.
func bucketValue(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, x != ""
	case int64:
		return strconv.FormatInt(x, 10), true
	case float64:
		if i, ok := wholeFloat(x); ok {
			return strconv.FormatInt(i, 10), true
		}
	}
	return "", false
}

func wholeFloat(x float64) (int64, bool) {
	if x != float64(int64(x)) || x >= 1<<53 || x <= -(1<<53) {
		return 0, false
	}
	return int64(x), true
}
