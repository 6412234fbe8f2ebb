package mongostore_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"testing"
	"time"

	"platform/kernel/store"
	"platform/kernel/store/mongostore"
	"platform/kernel/store/storetest"
)

// TestContract runs the store contract against the MongoDB (or
// MongoDB-wire server, such as FerretDB) at MONGODB_URI, in a new database
// per case, dropped afterwards.
func TestContract(t *testing.T) {
	uri := os.Getenv("MONGODB_URI")
	if uri == "" {
		t.Skip("MONGODB_URI is not set")
	}
	storetest.Run(t, func(t *testing.T) store.Store {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		s, err := mongostore.Open(ctx, uri, "contract_"+randomHex())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			if err := s.DropDatabase(ctx); err != nil {
				t.Errorf("drop the test database: %v", err)
			}
			_ = s.Close(ctx)
		})
		return s
	}, ferretDeviations(uri)...)
}

// ferretDeviations are the contract cases FerretDB 1.24 cannot store as
// MongoDB does; real MongoDB runs every case.
func ferretDeviations(uri string) []storetest.Unsupported {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := mongostore.Open(ctx, uri, "contract_probe")
	if err != nil {
		return nil
	}
	defer s.Close(ctx)
	if !s.FerretDB() {
		return nil
	}
	return []storetest.Unsupported{
		{Case: "NestedArrays", Reason: "FerretDB 1.24 refuses arrays of arrays"},
		{Case: "SpecialFloats", Reason: "FerretDB 1.24 refuses infinities and drops the sign of -0"},
		{Case: "UniqueMissingField", Reason: "FerretDB 1.24 unique indexes do not treat a missing field as null"},
	}
}

func randomHex() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
