package contract

// Credential commands: test, refresh and revoke of a stored credential
// (POST /config/credentials/:id/actions/<command>). One CredentialCommand
// workflow per call runs one activity, which opens the sealed values,
// calls the credential type's provider and writes the outcome back through
// the record service. The clear values never enter the workflow's
// history: input and result name the credential and the outcome only.
const (
	WorkflowCredentialCommand = "CredentialCommand"
	// ActivityRunCredentialCommand runs one command on one credential.
	ActivityRunCredentialCommand = "RunCredentialCommand"
)

// The credential commands.
const (
	CredentialTest    = "test"
	CredentialRefresh = "refresh"
	CredentialRevoke  = "revoke"
)

// Outcomes of a credential command.
const (
	// CredentialOK: the provider accepted (test), answered new tokens
	// (refresh) or revoked.
	CredentialOK = "ok"
	// CredentialFail: the provider refused or could not be reached; the
	// credential records it (lastTestStatus fail, maybe _status expired).
	CredentialFail = "fail"
	// CredentialInvalid: the values lack what the command needs (Field
	// names it); nothing was called or recorded.
	CredentialInvalid = "invalid"
	// CredentialConflict: the credential's state forbids the command (a
	// revoked credential), or its type does not support it.
	CredentialConflict = "conflict"
	// CredentialGone: the credential was deleted.
	CredentialGone = "gone"
	// CredentialUnreadable: the stored values do not open (altered, or
	// sealed under another master key), or the worker has no master key.
	CredentialUnreadable = "unreadable"
)

// CredentialCommandWorkflowID is the id of the command workflows of one
// credential: one at a time per credential, so two refreshes never race
// with one refresh token.
func CredentialCommandWorkflowID(customer, id string) string {
	return "credential-command-" + customer + "-" + id
}

// CredentialCommandInput names a credential of the customer in the
// context, the command, and who asked (recorded as modifiedBy).
type CredentialCommandInput struct {
	CredentialID string
	Command      string
	Actor        string
}

// CredentialCommandResult is what the command did. Reason and Field are
// safe to show: they never hold a value of the credential.
type CredentialCommandResult struct {
	Outcome string
	Reason  string `json:",omitempty"`
	Field   string `json:",omitempty"`
	// Remote is false for a revoke that the type's service does not
	// support: the platform only stopped using the credential.
	Remote bool `json:",omitempty"`
}
