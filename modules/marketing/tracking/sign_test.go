package tracking_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"platform/kernel/store"
	"platform/modules/marketing/tracking"
)

func TestSignatureCoversEveryPartAndItsBoundaries(t *testing.T) {
	s := tracking.Signer{Key: []byte(strings.Repeat("k", 32))}
	sig := s.Sign("c", "a", "bc")
	require.True(t, s.Verify(sig, "c", "a", "bc"))
	require.False(t, s.Verify(sig, "c", "ab", "c"), "moving a boundary changes the signature")
	require.False(t, s.Verify(sig, "c", "a", "bd"))
	other := tracking.Signer{Key: []byte(strings.Repeat("x", 32))}
	require.False(t, other.Verify(sig, "c", "a", "bc"), "another key does not verify it")
}

func TestMessageIDRoundTrip(t *testing.T) {
	cust, log := store.NewID(), store.NewID()
	id := tracking.MessageID(cust, log, "mail.example.com")
	c, l, ok := tracking.ParseMessageID("<" + id + ">")
	require.True(t, ok)
	require.Equal(t, cust, c)
	require.Equal(t, log, l)
	for _, bad := range []string{"", "x@y", "abc.def@host", log + "@host", "<" + log + "." + cust + ">"} {
		_, _, ok := tracking.ParseMessageID(bad)
		require.False(t, ok, bad)
	}
}
