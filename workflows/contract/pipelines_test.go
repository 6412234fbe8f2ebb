package contract

import "testing"

// TestStepLimitDefaultsToTheContracts: a run started before StepLimit
// existed (zero in its history) keeps the contract's limit.
func TestStepLimitDefaultsToTheContracts(t *testing.T) {
	for _, c := range []struct{ set, want int }{{0, MaxExecutedSteps}, {-3, MaxExecutedSteps}, {250, 250}} {
		if got := (StartRunOutput{StepLimit: c.set}).Steps(); got != c.want {
			t.Errorf("StepLimit %d: Steps() = %d, want %d", c.set, got, c.want)
		}
	}
}
