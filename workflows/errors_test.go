package workflows

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"platform/workflows/contract"
)

// A platform fault inside an activity (here a store that cannot be
// reached) must not put internal addresses into the run record, while the
// platform's own described errors keep their text.
func TestPlatformFaultsReachRunRecordsAsNeutralText(t *testing.T) {
	for _, c := range []struct {
		name  string
		fault error
		want  contract.StepError
	}{
		{"plain Go error", errors.New("dial tcp 10.1.2.3:27017: connect: connection refused"),
			contract.StepError{Kind: "internal", Message: internalError}},
		{"described error", temporal.NewNonRetryableApplicationError("pipeline p does not exist", contract.ErrTypePipelineNotFound, nil),
			contract.StepError{Kind: "error", Message: "pipeline p does not exist"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var s testsuite.WorkflowTestSuite
			env := s.NewTestWorkflowEnvironment()
			fail := func(context.Context) error { return c.fault }
			env.RegisterActivityWithOptions(fail, activityName("Fail"))
			env.ExecuteWorkflow(func(ctx workflow.Context) (contract.StepError, error) {
				ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: time.Second,
					RetryPolicy: &temporal.RetryPolicy{MaximumAttempts: 1}})
				err := workflow.ExecuteActivity(ctx, "Fail").Get(ctx, nil)
				return *errorOf(ctx, "test", err), nil
			})
			require.NoError(t, env.GetWorkflowError())
			var got contract.StepError
			require.NoError(t, env.GetWorkflowResult(&got))
			require.Equal(t, c.want, got)
		})
	}
}

func activityName(n string) activity.RegisterOptions { return activity.RegisterOptions{Name: n} }
