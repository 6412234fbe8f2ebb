//go:build !unix

package sqlitestore

// lockFile does nothing where flock is missing: one process per file is
// then the caller's to ensure.
func lockFile(string) (release func(), err error) { return func() {}, nil }
