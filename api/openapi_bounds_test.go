package api

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"platform/kernel/resource"
)

// A generated client must not send what validation refuses: declared
// bounds are published as JSON Schema keywords.
func TestFieldBoundsArePublished(t *testing.T) {
	n := fieldSchema(&resource.Field{Name: "w", Type: resource.TInteger, Required: true, Range: resource.Between(0, 100)}, true)
	assert.Equal(t, obj{"type": "integer", "minimum": 0.0, "maximum": 100.0}, n)
	a := fieldSchema(&resource.Field{Name: "v", Type: resource.TArray, Required: true, MinItems: 1, MaxItems: 20}, true)
	assert.Equal(t, 1, a["minItems"])
	assert.Equal(t, 20, a["maxItems"])
}
