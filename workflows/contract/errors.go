package contract

import "go.temporal.io/sdk/temporal"

// Error types the pipeline workflows and activities exchange.
const (
	// ErrTypeStep is a failed step; its details are what StepFailure
	// attaches.
	ErrTypeStep = "StepFailed"
	// ErrTypeRunFailed is a failed run, so that failed runs show as failed
	// workflows in the Temporal UI; its detail is the StepError.
	ErrTypeRunFailed = "PipelineRunFailed"
	// StartRun's errors, described for the run record.
	ErrTypePipelineNotFound = "PipelineNotFound"
	ErrTypePipelineInvalid  = "PipelineInvalid"
)

// StepFailure is a failed step as an error: retried by the step's retry
// policy unless permanent. Its details are the StepError, the user code's
// logs and the step's rendered input (all with secrets redacted), so a
// failed step is recorded as fully as a successful one. The activities
// raise it and the interpreter reads it back with StepFailureDetails: the
// order of the details is part of the recorded histories.
func StepFailure(d StepError, permanent bool, cause error, logs []string, input any) error {
	return temporal.NewApplicationErrorWithOptions(d.Message, ErrTypeStep, temporal.ApplicationErrorOptions{
		NonRetryable: permanent, Cause: cause, Details: []any{d, logs, input},
	})
}

// StepFailureDetails reads what a StepFailure carries.
func StepFailureDetails(app *temporal.ApplicationError) (d StepError, logs []string, input any) {
	if app.Details(&d, &logs, &input) != nil {
		_ = app.Details(&d)
	}
	return d, logs, input
}
