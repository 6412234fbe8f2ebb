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

// ReportBugInput is one fault of the platform inside a workflow, filed as
// a Bug task of the workflow's customer: Where and Kind make its signature
// (one task per recurring fault), DebugID finds it in the logs.
type ReportBugInput struct {
	Where   string // e.g. "workflow PipelineRun, function step"
	Kind    string // the error's type, as Temporal names it
	DebugID string // the workflow (run) id
}
