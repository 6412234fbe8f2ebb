package sqlitestore

import (
	"context"
	"crypto/rand"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"platform/kernel/store"
)

// TestOpenDamagedFileIsCorrupt: a file that is no database, and a database
// whose schema page is overwritten, fail Open with store.ErrCorrupt naming
// the file, which start-up does not retry (they used to read as a passing
// store.ErrUnavailable), and the lock is released for the next try.
func TestOpenDamagedFileIsCorrupt(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage.db")
	noise := make([]byte, 8192)
	rand.Read(noise)
	if err := os.WriteFile(garbage, noise, 0o600); err != nil {
		t.Fatal(err)
	}

	malformed := filepath.Join(dir, "malformed.db")
	s, err := Open(malformed)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := s.Global("things").Insert(ctx, store.Doc{"_id": "a", "n": int64(1)}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(ctx); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(malformed, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt(noise[:3000], 100); err != nil { // page 1 after the header: the schema
		t.Fatal(err)
	}
	f.Close()

	for _, path := range []string{garbage, malformed} {
		_, err := Open(path)
		if !errors.Is(err, store.ErrCorrupt) || !store.Corrupt(err) {
			t.Fatalf("%s: err = %v, want store.ErrCorrupt", filepath.Base(path), err)
		}
		if !strings.Contains(err.Error(), path) {
			t.Errorf("the error does not name the file: %v", err)
		}
		if _, err := Open(path); !errors.Is(err, store.ErrCorrupt) {
			t.Errorf("%s: a second Open: %v (the first left the lock held?)", filepath.Base(path), err)
		}
	}
}
