package resource_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"

	"platform/kernel/resource"
)

func TestRangeBoundsNumbersBothEndsIncluded(t *testing.T) {
	f := &resource.Field{Name: "weight", Type: resource.TNumber, Range: resource.Between(0, 100)}
	for raw, ok := range map[string]bool{"0": true, "100": true, "50.5": true, "-0.1": false, "100.01": false} {
		_, errs := resource.ValidateValue(f, json.Number(raw), "weight")
		if ok {
			assert.Empty(t, errs, raw)
			continue
		}
		if assert.Len(t, errs, 1, raw) {
			assert.Equal(t, resource.CodeRange, errs[0].Code)
			assert.Equal(t, "weight", errs[0].Field)
			assert.Contains(t, errs[0].Message, "between 0 and 100")
		}
	}
}

func TestItemBoundsArrays(t *testing.T) {
	f := &resource.Field{Name: "variants", Type: resource.TArray, MinItems: 1, MaxItems: 2, Items: &resource.Field{Type: resource.TString}}
	cases := map[int]string{0: "at least 1", 1: "", 2: "", 3: "at most 2"}
	for n, want := range cases {
		arr := make([]any, n)
		for i := range arr {
			arr[i] = "v"
		}
		_, errs := resource.ValidateValue(f, arr, "variants")
		if want == "" {
			assert.Empty(t, errs, n)
			continue
		}
		if assert.Len(t, errs, 1, n) {
			assert.Equal(t, resource.CodeRange, errs[0].Code)
			assert.Contains(t, errs[0].Message, want)
		}
	}
}
