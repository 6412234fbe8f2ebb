package blocks

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strings"

	"platform/kernel/resource"
)

// bounded are the lists of a block type that Check bounds, by type: the
// declaration cannot say how many elements an array takes.
var bounded = map[string]struct {
	field string
	max   int
}{
	TypeGallery:      {"images", MaxImages},
	TypeAccordion:    {"items", MaxItems},
	TypePricing:      {"plans", MaxPlans},
	TypeTestimonials: {"items", MaxTestimonials},
}

var currencyCode = regexp.MustCompile(`^[A-Z]{3}$`)

// Check returns what is wrong with a list of blocks beyond what the
// declaration says, as field errors named like blocks[3].url: too many
// blocks, an _id twice, an embed of a provider not allowed, a list too
// short or too long, a price that is negative or not finite, a currency
// that is not an ISO 4217 code. It reads the raw decoded JSON as well as
// the value ValidateValue returned; run it on the raw list to name the
// same elements as validation does (validation drops invalid elements).
// What validation reports (a missing or mistyped field) Check passes over.
func Check(blocks []any) []resource.ErrorEntry {
	c := &checker{}
	if len(blocks) > MaxBlocks {
		c.fail(resource.CodeInvalid, "blocks", "a page holds at most %d blocks, not %d", MaxBlocks, len(blocks))
	}
	c.uniqueIDs(blocks)
	for i, b := range blocks {
		if doc, ok := b.(map[string]any); ok {
			c.block(doc, fmt.Sprintf("blocks[%d]", i))
		}
	}
	return c.errs
}

// checker collects every failure, so a client sees all at once.
type checker struct{ errs []resource.ErrorEntry }

func (c *checker) fail(code, field, format string, args ...any) {
	c.errs = append(c.errs, resource.FieldError(code, field, format, args...))
}

// uniqueIDs refuses an _id a list holds twice: a block's id names one
// block (translations and edits follow it).
func (c *checker) uniqueIDs(blocks []any) {
	seen := map[string]bool{}
	for i, b := range blocks {
		doc, _ := b.(map[string]any)
		id, _ := doc["_id"].(string)
		if id == "" {
			continue
		}
		if seen[id] {
			c.fail(resource.CodeInvalid, fmt.Sprintf("blocks[%d]._id", i), "the block id %s is used by an earlier block", id)
		}
		seen[id] = true
	}
}

func (c *checker) block(doc map[string]any, path string) {
	typ, _ := doc[tag].(string)
	if b, ok := bounded[typ]; ok {
		c.count(doc[b.field], path+"."+b.field, 1, b.max)
	}
	switch typ {
	case TypeEmbed:
		c.embed(doc, path)
	case TypePricing:
		plans, _ := doc["plans"].([]any)
		for j, p := range plans {
			if plan, ok := p.(map[string]any); ok {
				c.plan(plan, fmt.Sprintf("%s.plans[%d]", path, j))
			}
		}
	}
}

// count checks the length of a list that is present.
func (c *checker) count(v any, path string, min, max int) {
	list, ok := v.([]any)
	if ok && (len(list) < min || len(list) > max) {
		c.fail(resource.CodeInvalid, path, "field %q holds %d to %d elements, not %d", path, min, max, len(list))
	}
}

func (c *checker) embed(doc map[string]any, path string) {
	u, ok := doc["url"].(string)
	if ok && u != "" {
		if src, _ := player(u); src == "" {
			c.fail(resource.CodeFormat, path+".url", "field %q must be a page of %s", path+".url", orList(providerNames()))
		}
	}
}

func (c *checker) plan(plan map[string]any, path string) {
	if x, ok := numeric(plan["price"]); ok && (x < 0 || math.IsInf(x, 0) || math.IsNaN(x)) {
		c.fail(resource.CodeInvalid, path+".price", "field %q must be 0 or more", path+".price")
	}
	if cur, ok := plan["currency"].(string); ok && !currencyCode.MatchString(cur) {
		c.fail(resource.CodeFormat, path+".currency", "field %q must be an ISO 4217 code of three capital letters such as EUR", path+".currency")
	}
	c.count(plan["features"], path+".features", 0, MaxFeatures)
}

// numeric reads a number as decoded JSON or a stored document holds it.
func numeric(v any) (float64, bool) {
	switch x := v.(type) {
	case json.Number:
		// An overflowing number reads as ±Inf with an error: it is
		// reported as not finite, not passed over.
		f, err := x.Float64()
		return f, err == nil || math.IsInf(f, 0)
	case float64:
		return x, true
	case int64:
		return float64(x), true
	case int32:
		return float64(x), true
	case int:
		return float64(x), true
	}
	return 0, false
}

// AssignIDs gives every block without an _id a new one (store.NewID), so
// a block keeps its identity from its first save on.
func AssignIDs(blocks []any, newID func() string) {
	for _, b := range blocks {
		if doc, ok := b.(map[string]any); ok {
			if id, _ := doc["_id"].(string); id == "" {
				doc["_id"] = newID()
			}
		}
	}
}

// orList joins names as "a, b or c".
func orList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}
