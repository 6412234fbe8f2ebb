package flags

import (
	"strconv"

	"github.com/twmb/murmur3"
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
// MurmurHash3_x86_32), from the maintained twmb/murmur3 rather than our
// own copy; the published vectors (docs/config-flags.md) pin it.
func Murmur3(data []byte, seed uint32) uint32 { return murmur3.SeedSum32(seed, data) }

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
