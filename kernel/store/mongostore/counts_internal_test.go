package mongostore

import (
	"errors"
	"testing"

	"go.mongodb.org/mongo-driver/v2/mongo"
)

// refused decides whether a failed write left the counter alone: only a
// server's refusal does; a write concern error comes with a write that
// the server applied.
func TestRefused(t *testing.T) {
	duplicate := mongo.WriteException{WriteErrors: []mongo.WriteError{{Code: 11000, Message: "E11000 duplicate key"}}}
	cases := []struct {
		what string
		err  error
		want bool
	}{
		{"a duplicate key", duplicate, true},
		{"a command refused", mongo.CommandError{Code: 121, Message: "document failed validation"}, true},
		{"a write concern error", mongo.WriteException{WriteConcernError: &mongo.WriteConcernError{Code: 64, Message: "waiting for replication timed out"}}, false},
		{"a network error", mongo.CommandError{Labels: []string{"NetworkError"}, Message: "connection reset"}, false},
		{"no server answer", errors.New("dial tcp: connection refused"), false},
	}
	for _, tc := range cases {
		if got := refused(tc.err); got != tc.want {
			t.Errorf("%s: refused = %v, want %v", tc.what, got, tc.want)
		}
	}
}
