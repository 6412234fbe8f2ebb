package sandbox

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestNonFiniteNumbersNeverLeaveAChild: what user code makes of infinities
// arrives as JSON null (JavaScript) or as a runtime error (JSONata), so a
// child never writes 1e999; Value refuses it anyway (TestValueRefuses...).
func TestNonFiniteNumbersNeverLeaveAChild(t *testing.T) {
	p := newPool(t, PoolOptions{Size: 1})
	ok(t, run(t, p, KindJSExpression, "({inf: Infinity, neg: -1/0, nan: NaN, big: 1e999})", `null`), `{"inf":null,"neg":null,"nan":null,"big":null}`)
	res := run(t, p, KindJSONata, "$number('1e308') * 10", `null`)
	require.NotNil(t, res.Error, "output %s", res.Output)
	assert.Equal(t, ErrKindRuntime, res.Error.Kind)
}

// TestValueRefusesOutputThePlatformCannotKeep: the parent decodes a
// child's output itself, and refuses nesting beyond jsonlimit.MaxDepth and
// numbers beyond a float64 as output_too_large.
func TestValueRefusesOutputThePlatformCannotKeep(t *testing.T) {
	for _, out := range []string{`{"n":1e999}`, `[1,-1e400]`, strings.Repeat("[", 65) + strings.Repeat("]", 65)} {
		v, err := Result{Output: json.RawMessage(out)}.Value()
		require.NotNil(t, err, "%s decoded as %v", out, v)
		assert.Equal(t, ErrKindOutputTooLarge, err.Kind, out)
	}
	v, err := Result{Output: json.RawMessage(`{"sum":3,"big":12345678901234567890}`)}.Value()
	require.Nil(t, err)
	assert.Equal(t, map[string]any{"sum": json.Number("3"), "big": json.Number("12345678901234567890")}, v)
	failed := &Error{Kind: ErrKindTimeout}
	_, err = Result{Error: failed}.Value()
	assert.Same(t, failed, err)
}
