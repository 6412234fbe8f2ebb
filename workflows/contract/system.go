package contract

// SelfCheckInput names the marker the self-check writes: the input of
// the SelfCheck workflow and of its activity.
type SelfCheckInput struct {
	Marker string
}

// SelfCheckResult reports what the worker saw: the output of the
// SelfCheck workflow and of its activity.
type SelfCheckResult struct {
	Customer string
	Found    bool
}
