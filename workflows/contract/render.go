package contract

import "go.temporal.io/sdk/temporal"

// Rendering: one RenderRecord workflow per rendered record (a wiki page,
// later a CMS page) renders it whenever a write signals a change, so two
// renders of one record never run at once and saves made during a render
// are folded into one more. RenderAffected finds the records a change of
// shared inputs (a glossary entry, a page others link to) concerns and
// signals their renders.
const (
	WorkflowRenderRecord   = "RenderRecord"
	WorkflowRenderAffected = "RenderAffected"
	// ActivityRender renders one record: a hash check, then the render,
	// the write of its output and its event when the inputs changed.
	ActivityRender = "Render"
	// ActivitySignalAffected signals the renders of the records a change
	// concerns.
	ActivitySignalAffected = "SignalAffectedRenders"
	// SignalRenderChanged tells a record's render that it changed.
	SignalRenderChanged = "changed"
	// ErrTypeRenderFailed is a render that cannot succeed with these
	// inputs (the record shows why); retrying it is useless.
	ErrTypeRenderFailed = "RenderFailed"
)

// RenderWorkflowID is the one render workflow of a customer's record.
func RenderWorkflowID(customer, kind, id string) string {
	return "render-" + kind + "-" + customer + "-" + id
}

// RenderInput names a record of the customer in the context: Kind is the
// renderer ("wikipage").
type RenderInput struct {
	Kind string
	ID   string
}

// RenderOutput says what a render did.
type RenderOutput struct {
	Rendered bool // the output changed and was written
	Indexed  bool // the search index was brought up to date
}

// AffectedInput names what changed: glossary words (terms and aliases,
// old and new) and link targets ("<kb>/<slug>" of pages created, renamed
// or deleted).
type AffectedInput struct {
	Kind    string
	Words   []string
	Targets []string
}

// AffectedOutput counts the renders signalled.
type AffectedOutput struct {
	Signalled int
}

// CustomerAttributes are the search attributes of a customer's workflow
// that concerns no pipeline, webhook or event (a render).
func CustomerAttributes(customer string) temporal.SearchAttributes {
	return temporal.NewSearchAttributes(temporal.NewSearchAttributeKeyKeyword(AttrCustomer).ValueSet(customer))
}
