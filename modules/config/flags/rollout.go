package flags

import (
	"fmt"
	"math"
)

// Weight is a variant's share of a rollout in percent, with at most two
// decimals (one bucket is 0.01 %).
type Weight struct {
	Variant string
	Percent float64
}

// SplitError names the rollout entry refused ("rollout[1].weight").
type SplitError struct {
	Path string
	Msg  string
}

func (e *SplitError) Error() string { return e.Path + " " + e.Msg }

// NewSplits turns weights into bucket ranges: each weight must have at
// most two decimals, each variant appear once, and the weights add up to
// exactly 100.
func NewSplits(weights []Weight) ([]Split, error) {
	out := make([]Split, len(weights))
	seen := map[string]bool{}
	total := 0
	for i, w := range weights {
		n := math.Round(w.Percent * 100)
		if math.Abs(n-w.Percent*100) > 1e-6 || n < 0 {
			return nil, &SplitError{fmt.Sprintf("rollout[%d].weight", i), "must be a percentage with at most two decimals (one bucket is 0.01 %)"}
		}
		if seen[w.Variant] {
			return nil, &SplitError{fmt.Sprintf("rollout[%d].variant", i), fmt.Sprintf("names %q twice: give each variant one weight", w.Variant)}
		}
		seen[w.Variant] = true
		out[i] = Split{Variant: w.Variant, Buckets: int(n)}
		total += int(n)
	}
	if total != Buckets {
		return nil, &SplitError{"rollout", fmt.Sprintf("weights add up to %s %%; they must add up to exactly 100", trimPercent(total))}
	}
	return out, nil
}

func trimPercent(buckets int) string {
	return fmt.Sprintf("%g", float64(buckets)/100)
}
