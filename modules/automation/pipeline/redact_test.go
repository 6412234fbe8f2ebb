package pipeline

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestRedactor(t *testing.T) {
	r := NewRedactor([]string{"s3cr3t-1", "s3cr3t-1-longer", ""})
	require.Equal(t, "Bearer [redacted]", r.String("Bearer s3cr3t-1-longer"), "the longest secret first")
	got := r.Value(map[string]any{"h": map[string]string{"Authorization": "s3cr3t-1"}, "s3cr3t-1": []any{"x s3cr3t-1 y", 1.0}})
	require.Equal(t, map[string]any{"h": map[string]any{"Authorization": "[redacted]"}, "[redacted]": []any{"x [redacted] y", 1.0}}, got)
	var none *Redactor
	require.Equal(t, "s3cr3t-1", none.String("s3cr3t-1"))
}

// TestRedactorLeavesShortSecretsToStructure: values shorter than
// MinRedactedLength are not replaced as substrings, so texts stay intact.
func TestRedactorLeavesShortSecretsToStructure(t *testing.T) {
	r := NewRedactor([]string{"p", "u", "ab", "1234567"})
	const msg = "http://127.0.0.1:9/x: dial tcp: connection refused (about 1234567 bytes)"
	require.Equal(t, msg, r.String(msg))
}

// TestMaskSecrets: every value reads as [redacted], keys kept, so a
// template rendered over it hides what came from a secret.
func TestMaskSecrets(t *testing.T) {
	got := MaskSecrets(map[string]any{"smtp": map[string]any{"user": "u", "port": int64(587), "hosts": []any{"a", "b"}}})
	require.Equal(t, map[string]any{"smtp": map[string]any{"user": Redacted, "port": Redacted, "hosts": []any{Redacted, Redacted}}}, got)
}
