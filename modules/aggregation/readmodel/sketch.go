package readmodel

import (
	"math"
	"sort"
	"strconv"
	"strings"
)

// Durations are kept as a bounded histogram (the log buckets of DDSketch):
// bucket i holds the values in (γ^(i-1), γ^i] with γ = (1+α)/(1-α), so any
// percentile read back is within α (1 %) of the exact one, whatever the
// number of values, in at most about 1,000 buckets from 1 ms to a day.
// Bucket counts only add up, which is what an increment per event needs.
const sketchAccuracy = 0.01

var (
	sketchGamma = (1 + sketchAccuracy) / (1 - sketchAccuracy)
	sketchLog   = math.Log(sketchGamma)
)

// histField is the row field holding the buckets (not presented).
const histField = "hist"

// bucketOf names the bucket of a duration in milliseconds ("z" for 0).
func bucketOf(ms float64) string {
	if ms <= 0 || math.IsNaN(ms) {
		return "z"
	}
	if ms < 1 {
		ms = 1
	}
	return "b" + strconv.Itoa(int(math.Ceil(math.Log(ms)/sketchLog)))
}

// bucketValue is the value a bucket stands for: the one whose relative
// error to every value of the bucket is at most α.
func bucketValue(b string) float64 {
	if b == "z" {
		return 0
	}
	i, _ := strconv.Atoi(strings.TrimPrefix(b, "b"))
	return 2 * math.Pow(sketchGamma, float64(i)) / (sketchGamma + 1)
}

// Percentile reads the nearest-rank percentile q (0 < q <= 1) from a
// histogram of bucket counts; 0 when it is empty.
func Percentile(hist map[string]any, q float64) float64 {
	type bucket struct {
		value float64
		n     int64
	}
	var list []bucket
	var total int64
	for k, v := range hist {
		n := asInt(v)
		if n <= 0 {
			continue
		}
		list = append(list, bucket{bucketValue(k), n})
		total += n
	}
	if total == 0 {
		return 0
	}
	sort.Slice(list, func(i, j int) bool { return list[i].value < list[j].value })
	rank := int64(math.Ceil(q * float64(total)))
	var seen int64
	for _, b := range list {
		seen += b.n
		if seen >= rank {
			return math.Round(b.value*10) / 10
		}
	}
	return math.Round(list[len(list)-1].value*10) / 10
}

// ExactPercentile is the nearest-rank percentile of values (the recount
// the tests compare Percentile with).
func ExactPercentile(values []float64, q float64) float64 {
	if len(values) == 0 {
		return 0
	}
	s := append([]float64(nil), values...)
	sort.Float64s(s)
	rank := int(math.Ceil(q * float64(len(s))))
	if rank < 1 {
		rank = 1
	}
	return s[rank-1]
}

func asInt(v any) int64 {
	switch n := v.(type) {
	case int64:
		return n
	case int:
		return int64(n)
	case int32:
		return int64(n)
	case float64:
		return int64(n)
	}
	return 0
}
