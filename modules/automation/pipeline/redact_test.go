package pipeline

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestRedactor(t *testing.T) {
	r := NewRedactor([]string{"s3cr3t", "s3cr3t-longer", ""})
	require.Equal(t, "Bearer [redacted]", r.String("Bearer s3cr3t-longer"), "the longest secret first")
	got := r.Value(map[string]any{"h": map[string]string{"Authorization": "s3cr3t"}, "s3cr3t": []any{"x s3cr3t y", 1.0}})
	require.Equal(t, map[string]any{"h": map[string]any{"Authorization": "[redacted]"}, "[redacted]": []any{"x [redacted] y", 1.0}}, got)
	var none *Redactor
	require.Equal(t, "s3cr3t", none.String("s3cr3t"))
}
