package contract

// The aggregation service (docs/aggregation.md): one Aggregator workflow
// per customer applies the events waiting in its inbox to the read models
// and runs rebuilds; AggregationRebuild asks every customer's Aggregator
// (or one's) for a rebuild and waits for them.
const (
	WorkflowAggregator         = "Aggregator"
	WorkflowAggregationRebuild = "AggregationRebuild"

	ActivityApplyAggregation          = "ApplyAggregation"
	ActivityStartAggregationRebuild   = "StartAggregationRebuild"
	ActivityRebuildAggregationPage    = "RebuildAggregationPage"
	ActivityFinishAggregationRebuild  = "FinishAggregationRebuild"
	ActivityAggregationCustomers      = "AggregationCustomers"
	ActivityRequestAggregationRebuild = "RequestAggregationRebuild"
	ActivityAggregationRebuildsDone   = "AggregationRebuildsDone"

	// SignalAggregationWake: events wait in the inbox.
	SignalAggregationWake = "aggregation-wake"
	// SignalAggregationRebuild carries an AggregationRebuildRequest.
	SignalAggregationRebuild = "aggregation-rebuild"
	// QueryAggregationProgress answers an AggregationRebuildProgress.
	QueryAggregationProgress = "progress"
	// AggregationRebuildWorkflowID: one rebuild of all customers at a time.
	AggregationRebuildWorkflowID = "aggregation-rebuild"
)

// AggregatorWorkflowID is the one Aggregator of a customer.
func AggregatorWorkflowID(customer string) string { return "aggregator-" + customer }

// AggregatorInput starts, or continues as new, a customer's Aggregator.
type AggregatorInput struct {
	// Rebuild is the rebuild under way, carried across continue-as-new.
	Rebuild *AggregationRebuildCursor `json:"rebuild,omitempty"`
	// Limit is the batch size (0: the worker's default).
	Limit int `json:"limit,omitempty"`
}

// AggregationRebuildRequest asks an Aggregator to rebuild models (all
// when empty); ID names the request, which the state then reports.
type AggregationRebuildRequest struct {
	ID     string   `json:"id"`
	Models []string `json:"models,omitempty"`
}

// AggregationRebuildCursor is where a customer's rebuild stands.
type AggregationRebuildCursor struct {
	ID     string   `json:"id"`
	Models []string `json:"models"`
	Model  int      `json:"model"`  // index into Models
	Source int      `json:"source"` // index into the model's sources
	After  string   `json:"after"`  // last record id counted
	Done   int64    `json:"done"`   // records counted so far
}

// ApplyAggregationInput asks for one batch of at most Limit events.
type ApplyAggregationInput struct {
	Limit int `json:"limit,omitempty"`
}

// ApplyAggregationResult is what one batch did.
type ApplyAggregationResult struct {
	Events   int   `json:"events"`
	More     bool  `json:"more"`
	MaxLagMs int64 `json:"maxLagMs"`
}

// StartAggregationRebuildInput empties the models of a rebuild.
type StartAggregationRebuildInput struct {
	Cursor AggregationRebuildCursor `json:"cursor"`
}

// RebuildAggregationPageInput counts one page of records from Cursor.
type RebuildAggregationPageInput struct {
	Cursor AggregationRebuildCursor `json:"cursor"`
	Limit  int                      `json:"limit,omitempty"`
}

// RebuildAggregationPageResult is the cursor after the page, and Finished
// once every source of every model was read.
type RebuildAggregationPageResult struct {
	Cursor   AggregationRebuildCursor `json:"cursor"`
	Finished bool                     `json:"finished"`
}

// FinishAggregationRebuildInput records a finished rebuild.
type FinishAggregationRebuildInput struct {
	ID string `json:"id"`
}

// AggregationRebuildInput starts, or continues as new, a rebuild of the
// read models Models (all when empty) of Customer, or of every customer.
type AggregationRebuildInput struct {
	ID       string   `json:"id"`
	Models   []string `json:"models,omitempty"`
	Customer string   `json:"customer,omitempty"`
	// After is the last customer id asked (paging through customers).
	After     string   `json:"after,omitempty"`
	Waiting   []string `json:"waiting,omitempty"`
	Requested int      `json:"requested"`
	Finished  int      `json:"finished"`
}

// AggregationRebuildProgress is the answer of QueryAggregationProgress
// and of the finished AggregationRebuild.
type AggregationRebuildProgress struct {
	ID        string `json:"id"`
	Requested int    `json:"requested"`
	Finished  int    `json:"finished"`
	Done      bool   `json:"done"`
}

// AggregationCustomersInput pages through customer ids after After.
type AggregationCustomersInput struct {
	After string `json:"after,omitempty"`
	Limit int    `json:"limit"`
}

// AggregationCustomersResult is one page of customer ids, in id order.
type AggregationCustomersResult struct {
	Customers []string `json:"customers"`
}

// RequestAggregationRebuildInput hands a rebuild request to a customer's
// Aggregator, starting it if it does not run.
type RequestAggregationRebuildInput struct {
	Customer string                    `json:"customer"`
	Request  AggregationRebuildRequest `json:"request"`
}

// AggregationRebuildsDoneInput asks which of Customers' rebuilds ID has
// not finished yet.
type AggregationRebuildsDoneInput struct {
	ID        string   `json:"id"`
	Customers []string `json:"customers"`
}

// AggregationRebuildsDoneResult lists the customers still rebuilding.
type AggregationRebuildsDoneResult struct {
	Waiting []string `json:"waiting"`
}
