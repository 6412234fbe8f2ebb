package config

import (
	"bytes"
	"image"
	"image/png"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stretchr/testify/assert"
)

// TestCSVCellEscapeRoundTrips: what the export escapes, the import
// unescapes to the very same value, and formulas never start a cell.
func TestCSVCellEscapeRoundTrips(t *testing.T) {
	for _, v := range []string{"", "plain", "=1+1", "+49", "-5", "@sum", "\tx", "\rx", "'", "''", "'=x", "'x", "'''", "x'=", "=", "'\t"} {
		cell := escapeCell(v)
		assert.Equal(t, v, unescapeCell(cell), "value %q, cell %q", v, cell)
		if cell != "" {
			assert.NotContains(t, formulaStart, string(cell[0]), "cell %q starts a formula", cell)
		}
	}
}

func TestCanonicalLocale(t *testing.T) {
	for in, want := range map[string]string{"en-us": "en-US", "EN": "en", "iw": "he", "zh-hant-tw": "zh-Hant-TW", "en_GB": "en-GB", "deu": "de"} {
		got, msg := CanonicalLocale(in)
		assert.Empty(t, msg, in)
		assert.Equal(t, want, got, in)
	}
	for _, bad := range []string{"", "und", "x-private", "zz", "english", "en-", "a-very-long-tag-that-goes-on-and-on-x"} {
		_, msg := CanonicalLocale(bad)
		assert.NotEmpty(t, msg, "%q is refused", bad)
	}
}

// TestCheckUpload covers the type rules without a platform.
func TestCheckUpload(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, png.Encode(&b, image.NewGray(image.Rect(0, 0, 2, 3))))
	got, err := checkUpload("image/png", b.Bytes())
	assert.NoError(t, err)
	assert.Equal(t, &assetType{contentType: "image/png", width: 2, height: 3}, got)
	got, err = checkUpload("text/plain; charset=latin1", []byte("hello"))
	assert.NoError(t, err)
	assert.Equal(t, "text/plain; charset=utf-8", got.contentType, "the declared parameters are not kept")
	for ct, body := range map[string]string{"image/svg+xml": "<svg/>", "application/atom+xml": "<feed/>", "": "x", "nonsense": "x", "text/javascript": "alert(1)"} {
		_, err := checkUpload(ct, []byte(body))
		assert.Error(t, err, "%q refused", ct)
	}
}
