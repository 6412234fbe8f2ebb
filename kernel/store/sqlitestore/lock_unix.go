//go:build unix

package sqlitestore

import (
	"fmt"
	"os"
	"syscall"
)

// lockFile takes an exclusive lock beside the database for the life of
// the Store: a second process would not see this one's shapes cache and
// could answer filters wrongly, so it is refused instead.
func lockFile(path string) (release func(), err error) {
	f, err := os.OpenFile(path+".lock", os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, fmt.Errorf("sqlitestore: %s is in use by another process (or another Store)", path)
	}
	return func() { f.Close() }, nil
}
