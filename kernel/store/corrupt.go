package store

import (
	"errors"
	"strings"
)

// ErrCorrupt wraps a failure to open a database file that is damaged or no
// database at all. Unlike ErrUnavailable it is no passing outage: no retry
// helps, the file has to be restored from a backup.
var ErrCorrupt = errors.New("store: the database file is damaged")

// corruptTexts are SQLite's messages for SQLITE_CORRUPT and SQLITE_NOTADB,
// which layers that pass the error on as text keep (database/sql wrappers,
// FerretDB, Temporal's persistence).
var corruptTexts = []string{"database disk image is malformed", "file is not a database"}

// Corrupt reports whether err says a database file is damaged: ErrCorrupt,
// or one of SQLite's texts for it.
func Corrupt(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, ErrCorrupt) {
		return true
	}
	msg := err.Error()
	for _, t := range corruptTexts {
		if strings.Contains(msg, t) {
			return true
		}
	}
	return false
}
