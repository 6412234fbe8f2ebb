package contract

// The master key rotation: it re-seals every sealed value (credentials,
// webhook secrets) under the new master key, batch after batch, and then
// records the new key as the store's (docs/config-keys.md).
const (
	WorkflowRotateMasterKey = "RotateMasterKey"
	// ActivityResealBatch re-seals one bounded batch from a cursor.
	ActivityResealBatch = "ResealBatch"
	// ActivityFinishMasterKeyRotation records the new key as the one
	// every stored value is sealed under.
	ActivityFinishMasterKeyRotation = "FinishMasterKeyRotation"
)

// MasterKeyRotationWorkflowID is the one rotation to a key: starting it
// again while it runs finds the running one.
func MasterKeyRotationWorkflowID(keyID string) string { return "master-key-rotation-" + keyID }

// ResealCursor is where a rotation stands: a sealed field (index), a
// customer and the last record id done there.
type ResealCursor struct {
	Field    int    `json:"field"`
	Customer string `json:"customer"`
	After    string `json:"after"`
}

// RotateMasterKeyInput starts, or continues as new, a rotation to the key
// KeyID (its id, never the key). A rotation is done after a full pass
// that re-sealed nothing: values written under the old key by a process
// not yet restarted are caught by the next pass.
type RotateMasterKeyInput struct {
	KeyID  string       `json:"keyId"`
	Cursor ResealCursor `json:"cursor"`
	// Batch is how many values one activity call reads (0: the worker's
	// default).
	Batch int `json:"batch,omitempty"`
	// Pass counts the passes over every sealed value (from 1); PassResealed
	// what the current pass re-sealed so far.
	Pass         int   `json:"pass"`
	PassResealed int64 `json:"passResealed"`
	// Totals over every run of the rotation.
	Scanned  int64 `json:"scanned"`
	Resealed int64 `json:"resealed"`
}

// ResealBatchInput asks for one batch of at most Batch values (0: the
// worker's default) from Cursor.
type ResealBatchInput struct {
	KeyID  string       `json:"keyId"`
	Cursor ResealCursor `json:"cursor"`
	Batch  int          `json:"batch,omitempty"`
}

// ResealBatchResult is what one batch did and where the next starts.
type ResealBatchResult struct {
	Next     ResealCursor `json:"next"`
	Done     bool         `json:"done"`
	Scanned  int64        `json:"scanned"`
	Resealed int64        `json:"resealed"`
}

// FinishMasterKeyRotationInput names the new key.
type FinishMasterKeyRotationInput struct {
	KeyID string `json:"keyId"`
}

// RotateMasterKeyResult sums a finished rotation.
type RotateMasterKeyResult struct {
	KeyID    string `json:"keyId"`
	Passes   int    `json:"passes"`
	Scanned  int64  `json:"scanned"`
	Resealed int64  `json:"resealed"`
}

// ErrSealedValueUnreadable is the error type of a stored value that opens
// under no key the worker holds: retrying cannot help, and the rotation
// stops rather than lose it.
const ErrSealedValueUnreadable = "SealedValueUnreadable"
