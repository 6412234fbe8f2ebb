//go:build race

package infra

// Race reports whether the binary runs under the race detector, which
// slows CPU-bound code several times: latency bounds of tests scale with it.
const Race = true
