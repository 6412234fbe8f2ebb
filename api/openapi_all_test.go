package api

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestRenameCollisions: a schema another module already defines
// differently is renamed in the later module, references with it, so the
// combined document never points one module's operation at another's
// schema; a schema defined the same way is shared.
func TestRenameCollisions(t *testing.T) {
	seen := obj{"Envelope": obj{"type": "object"}, "Items": obj{"type": "string"}}
	doc := obj{
		"paths": obj{"/items": obj{"get": obj{"responses": obj{"200": obj{"$ref": "#/components/schemas/Items"}}}}},
		"components": obj{"schemas": obj{
			"Envelope": obj{"type": "object"},
			"Items":    obj{"type": "array"},
		}},
	}
	out := renameCollisions("shop", doc, seen)
	schemas := out["components"].(obj)["schemas"].(obj)
	assert.Contains(t, schemas, "ShopItems")
	assert.NotContains(t, schemas, "Items")
	assert.Contains(t, schemas, "Envelope", "an identical schema keeps its name")
	ref := out["paths"].(obj)["/items"].(obj)["get"].(obj)["responses"].(obj)["200"].(obj)["$ref"]
	assert.Equal(t, "#/components/schemas/ShopItems", ref)
	assert.Equal(t, obj{"type": "array"}, doc["components"].(obj)["schemas"].(obj)["Items"], "the module's own document is unchanged")
}
