package jsonlimit

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// nested is a value of depth levels: arrays around an object around 1.
func nested(depth int) string {
	return strings.Repeat("[", depth-1) + `{"n":1}` + strings.Repeat("]", depth-1)
}

func TestDecodeRefusesNumbersBeyondFloat64(t *testing.T) {
	for _, c := range []struct{ text, path string }{
		{`{"customCRM":{"n":1e999}}`, "customCRM.n"},
		{`{"n":-1e400}`, "n"},
		{`{"tags":["a",1,1e309]}`, "tags[2]"},
		{`[{"ok":1},{"n":` + "1" + strings.Repeat("0", 400) + `}]`, "[1].n"},
		{`{"a":[[1,[2,9e999]]]}`, "a[0][1][1]"},
		{`1E999`, ""},
	} {
		_, err := Decode([]byte(c.text))
		var le *Error
		require.True(t, errors.As(err, &le), "%s: %v", c.text, err)
		assert.False(t, le.TooDeep, c.text)
		assert.Equal(t, c.path, le.Path, c.text)
	}
}

func TestDecodeKeepsFiniteNumbersExact(t *testing.T) {
	v, err := Decode([]byte(`{"big":12345678901234567890,"tiny":1e-999,"max":1.7976931348623157e308,"neg":-0.5}`))
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"big": json.Number("12345678901234567890"), "tiny": json.Number("1e-999"),
		"max": json.Number("1.7976931348623157e308"), "neg": json.Number("-0.5")}, v)
}

func TestDecodeRefusesNestingBeyondMaxDepth(t *testing.T) {
	_, err := Decode([]byte(nested(MaxDepth)))
	require.NoError(t, err, "exactly MaxDepth levels are fine")
	for _, depth := range []int{MaxDepth + 1, 999, 9999, 100000} {
		_, err := Decode([]byte(nested(depth)))
		var le *Error
		require.True(t, errors.As(err, &le), "depth %d: %v", depth, err)
		assert.True(t, le.TooDeep)
		assert.Equal(t, MaxDepth+1, le.Offset, "the bracket opening level %d", MaxDepth+1)
	}
}

func TestDepthIgnoresBracketsInStrings(t *testing.T) {
	text := `{"s":"` + strings.Repeat(`[{\"`, 100) + `"}`
	v, err := Decode([]byte(text))
	require.NoError(t, err)
	assert.Len(t, v.(map[string]any)["s"], 300)
}

func TestDecodeLeavesSyntaxToTheDecoder(t *testing.T) {
	var syn *json.SyntaxError
	_, err := Decode([]byte(`{"a":}`))
	assert.True(t, errors.As(err, &syn), "%v", err)
	_, err = Decode([]byte(`{"a":1}{"b":2}`))
	assert.ErrorIs(t, err, ErrTrailingData)
	_, err = Decode([]byte(`{"a":1} ]`))
	assert.ErrorIs(t, err, ErrTrailingData)
	_, err = Decode([]byte(`{"a":1}  `))
	assert.NoError(t, err)
}
