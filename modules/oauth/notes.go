package oauth

import (
	"context"
	"sync"

	"github.com/ory/fosite"
)

// notes collect what the storage saw during one token or revocation request
// (a reused code, revoked families) so the handler can audit it: fosite
// turns those findings into plain RFC 6749 errors.
type notes struct {
	mu       sync.Mutex
	reuse    string // "code" or "refresh"
	family   string
	customer string
	clientID string
	revoked  []string
}

type notesKey struct{}

func withNotes(ctx context.Context) (context.Context, *notes) {
	n := &notes{}
	return context.WithValue(ctx, notesKey{}, n), n
}

// notesOf returns the request's notes; nil (which ignores everything) when
// the storage is used outside a handler.
func notesOf(ctx context.Context) *notes {
	n, _ := ctx.Value(notesKey{}).(*notes)
	return n
}

func (n *notes) reused(kind string, r fosite.Requester) {
	sess, _ := r.GetSession().(*Session)
	cust := ""
	if sess != nil {
		cust = sess.Customer
	}
	n.reusedFamily(kind, r.GetID(), cust, r.GetClient().GetID())
}

func (n *notes) reusedFamily(kind, family, customer, clientID string) {
	if n == nil {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	n.reuse, n.family, n.customer, n.clientID = kind, family, customer, clientID
}

func (n *notes) revokedFamily(family string) {
	if n == nil {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, f := range n.revoked {
		if f == family {
			return
		}
	}
	n.revoked = append(n.revoked, family)
}
