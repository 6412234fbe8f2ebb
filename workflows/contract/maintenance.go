package contract

// The platform's housekeeping workflows, started by Temporal schedules.
const (
	WorkflowOAuthSweep = "OAuthSweep"
	// ActivitySweepOAuth runs one bounded round of the OAuth sweep.
	ActivitySweepOAuth = "SweepOAuth"
)

// OAuthSweepRound is what one round of the OAuth sweep answers: documents
// removed per collection, and whether expired ones are left for another.
type OAuthSweepRound struct {
	Removed map[string]int64
	More    bool
}

// OAuthSweepResult sums the rounds of one sweep.
type OAuthSweepResult struct {
	Removed map[string]int64
	Rounds  int
}
