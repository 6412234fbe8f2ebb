package mongostore_test

import (
	"context"
	"os"
	"sync"
	"testing"
	"time"

	"platform/kernel/store"
	"platform/kernel/store/mongostore"
)

// TestIndexesCreatedByReplicasAtOnce is several processes starting
// together: each has its own client and creates the same indexes of the
// same new collection at the same moment. Every one must succeed (FerretDB
// answers the collision by closing a connection; MongoDB by a conflict).
func TestIndexesCreatedByReplicasAtOnce(t *testing.T) {
	uri := os.Getenv("MONGODB_URI")
	if uri == "" {
		t.Skip("MONGODB_URI is not set")
	}
	db := "indexes_" + randomHex()
	idx := []store.Index{
		{Name: "uniq_email", Keys: []store.SortField{{Field: "email"}}, Unique: true, Sparse: true},
		{Name: "by_name", Keys: []store.SortField{{Field: "name"}}},
		{Name: "by_createdAt", Keys: []store.SortField{{Field: "createdAt", Desc: true}}},
	}
	const replicas = 6
	for round := range 5 {
		coll := "things" + string(rune('a'+round))
		var wg sync.WaitGroup
		errs := make(chan error, replicas)
		start := make(chan struct{})
		for range replicas {
			s := openStore(t, uri, db)
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer cancel()
				errs <- s.EnsureIndexes(ctx, coll, true, idx)
			}()
		}
		close(start)
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatalf("round %d: a replica failed to create the indexes: %v", round, err)
			}
		}
	}
}

func openStore(t *testing.T, uri, db string) *mongostore.Store {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := mongostore.Open(ctx, uri, db)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = s.DropDatabase(ctx)
		_ = s.Close(ctx)
	})
	return s
}
