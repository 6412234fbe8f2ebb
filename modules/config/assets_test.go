package config_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"platform/kernel/query"
	"platform/kernel/store"
	"platform/modules/config"
	"platform/test/apitest"
	"platform/test/testenv"
)

func picture(w, h int) image.Image {
	img := image.NewPaletted(image.Rect(0, 0, w, h), color.Palette{color.Black, color.White})
	img.Set(0, 0, color.White)
	return img
}

func pngFile(t testing.TB, w, h int) []byte {
	var b bytes.Buffer
	require.NoError(t, png.Encode(&b, picture(w, h)))
	return b.Bytes()
}

func jpegFile(t testing.TB, w, h int) []byte {
	var b bytes.Buffer
	require.NoError(t, jpeg.Encode(&b, picture(w, h), nil))
	return b.Bytes()
}

func gifFile(t testing.TB, w, h int) []byte {
	var b bytes.Buffer
	require.NoError(t, gif.Encode(&b, picture(w, h), nil))
	return b.Bytes()
}

// webpFile is a lossless WebP header of w×h (VP8L: signature 0x2f, then
// 14 bits width-1 and 14 bits height-1), which is what DecodeConfig reads.
func webpFile(w, h int) []byte {
	bits := uint32(w-1) | uint32(h-1)<<14
	payload := append([]byte{0x2f}, binary.LittleEndian.AppendUint32(nil, bits)...)
	payload = append(payload, 0, 0, 0) // pad to an even chunk
	chunk := append([]byte("VP8L"), binary.LittleEndian.AppendUint32(nil, uint32(len(payload)))...)
	chunk = append(chunk, payload...)
	body := append([]byte("WEBP"), chunk...)
	return append(append([]byte("RIFF"), binary.LittleEndian.AppendUint32(nil, uint32(len(body)))...), body...)
}

// asset creates an asset record and, when data is set, uploads it.
func (f *catalogFixture) asset(contentType string, data []byte) string {
	f.T.Helper()
	id := f.Create("/config/assets", map[string]any{"name": "logo.file"})
	if data != nil {
		f.ok(f.send("PUT", "/config/assets/"+id+"/content", f.Admin, contentType, data))
	}
	return id
}

func TestAssetUpload(t *testing.T) {
	f := newCatalog(t)
	empty := func(f *catalogFixture) apitest.IDs { return apitest.IDs{"a": f.asset("", nil)} }
	upload := func(name, ct string, data []byte, status int, field string) catalogScenario {
		sc := catalogScenario{Name: name, Given: empty, Method: "PUT", Path: "/config/assets/{a}/content",
			Header: []string{"Content-Type", ct}, Body: string(data), Status: status, Field: field}
		if status == 200 {
			sc.Events = []string{"assets.uploaded"}
		}
		return sc
	}
	dims := func(name, ct string, data []byte, w, h int) catalogScenario {
		sc := upload(name, ct, data, 200, "")
		sc.Then = func(f *catalogFixture, v apitest.IDs, r *testenv.Resp) {
			p := r.Payload()
			assert.Equal(f.T, ct, p["contentType"])
			assert.Equal(f.T, []any{float64(w), float64(h)}, []any{p["width"], p["height"]})
			assert.Equal(f.T, float64(len(data)), p["size"])
			sum := sha256.Sum256(data)
			assert.Equal(f.T, hex.EncodeToString(sum[:]), p["sha256"])
			assert.Equal(f.T, config.AssetReady, p["status"])
		}
		return sc
	}
	limit := assetLimit
	apitest.Run(t, f, []catalogScenario{
		dims("PNG dimensions are recorded", "image/png", pngFile(t, 3, 2), 3, 2),
		dims("JPEG dimensions are recorded", "image/jpeg", jpegFile(t, 17, 9), 17, 9),
		dims("GIF dimensions are recorded", "image/gif", gifFile(t, 5, 7), 5, 7),
		dims("WebP dimensions are recorded", "image/webp", webpFile(640, 480), 640, 480),
		upload("a file of exactly the limit", "text/plain", bytes.Repeat([]byte("a"), limit), 200, ""),
		upload("one byte over the limit is a 413", "text/plain", bytes.Repeat([]byte("a"), limit+1), 413, ""),
		upload("PNG bytes declared as JPEG", "image/jpeg", pngFile(t, 2, 2), 422, "contentType"),
		upload("HTML declared as text", "text/plain", []byte("<!DOCTYPE html><script>alert(1)</script>"), 422, "contentType"),
		upload("a PNG signature with a broken header", "image/png", append([]byte("\x89PNG\r\n\x1a\n"), bytes.Repeat([]byte{0}, 40)...), 422, "contentType"),
		upload("a canvas larger than allowed", "image/png", pngFile(t, config.MaxImageSide+1, 1), 422, "width"),
		upload("SVG is active content", "image/svg+xml", []byte(`<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>`), 415, "contentType"),
		upload("HTML is active content", "text/html", []byte("<html></html>"), 415, "contentType"),
		upload("an unknown binary type", "application/octet-stream", []byte{0, 1, 2, 3}, 415, "contentType"),
		upload("an empty body", "image/png", []byte{}, 422, "content"),
		{Name: "another customer's asset is not found", Given: empty, Method: "PUT", Path: "/config/assets/{a}/content",
			Token: func(f *catalogFixture) string { return f.Other }, Header: []string{"Content-Type", "image/png"}, Body: string(pngFile(t, 1, 1)), Status: 404},
		{Name: "uploading needs config.assets.edit", Given: empty, Method: "PUT", Path: "/config/assets/{a}/content", Scopes: []string{"config.assets.view"},
			Header: []string{"Content-Type", "image/png"}, Body: string(pngFile(t, 1, 1)), Status: 403},
		{Name: "a new file of another kind drops the old dimensions", Given: func(f *catalogFixture) apitest.IDs {
			return apitest.IDs{"a": f.asset("image/png", pngFile(t, 4, 4))}
		}, Method: "PUT", Path: "/config/assets/{a}/content", Header: []string{"Content-Type", "application/pdf"}, Body: "%PDF-1.7\n%\xe2\xe3\n",
			Status: 200, Events: []string{"assets.uploaded"},
			Then: func(f *catalogFixture, v apitest.IDs, r *testenv.Resp) {
				assert.NotContains(f.T, r.Payload(), "width")
				assert.Equal(f.T, "application/pdf", r.Payload()["contentType"])
				chunks, err := f.P.Store.Collection(config.BlobCollection).Find(f.P.Ctx(), store.FindOptions{Filter: query.Eq("asset", v["a"])})
				require.NoError(f.T, err)
				assert.Len(f.T, chunks, 1, "the old file's chunks are gone")
			}},
	})
}

func TestAssetDownload(t *testing.T) {
	f := newCatalog(t)
	big := append(pngFile(t, 1, 1), bytes.Repeat([]byte{7}, 600<<10)...) // three chunks
	withPNG := func(f *catalogFixture) apitest.IDs { return apitest.IDs{"a": f.asset("image/png", big)} }
	sum := sha256.Sum256(big)
	etag := `"` + hex.EncodeToString(sum[:]) + `"`
	apitest.Run(t, f, []catalogScenario{
		{Name: "the file with its headers", Given: withPNG, Method: "GET", Path: "/config/assets/{a}/content", Status: 200,
			Then: func(f *catalogFixture, _ apitest.IDs, r *testenv.Resp) {
				assert.True(f.T, bytes.Equal(big, r.Body), "the bytes as uploaded, across chunks")
				assert.Equal(f.T, "image/png", r.Header.Get("Content-Type"))
				assert.Equal(f.T, etag, r.Header.Get("ETag"))
				assert.Equal(f.T, "nosniff", r.Header.Get("X-Content-Type-Options"))
				assert.Equal(f.T, "private, no-cache", r.Header.Get("Cache-Control"))
				assert.Contains(f.T, r.Header.Get("Content-Security-Policy"), "sandbox")
				assert.Equal(f.T, `inline; filename=logo.file`, r.Header.Get("Content-Disposition"))
			}},
		{Name: "If-None-Match with the ETag is a 304", Given: withPNG, Method: "GET", Path: "/config/assets/{a}/content",
			Header: []string{"If-None-Match", etag}, Status: 304,
			Then: func(f *catalogFixture, _ apitest.IDs, r *testenv.Resp) { assert.Empty(f.T, r.Body) }},
		{Name: "text is an attachment", Given: func(f *catalogFixture) apitest.IDs {
			return apitest.IDs{"a": f.asset("text/csv", []byte("a,b\n1,2\n"))}
		}, Method: "GET", Path: "/config/assets/{a}/content", Status: 200,
			Then: func(f *catalogFixture, _ apitest.IDs, r *testenv.Resp) {
				assert.Equal(f.T, "text/csv; charset=utf-8", r.Header.Get("Content-Type"))
				assert.True(f.T, strings.HasPrefix(r.Header.Get("Content-Disposition"), "attachment"))
			}},
		{Name: "an asset without a file is a 409", Given: func(f *catalogFixture) apitest.IDs { return apitest.IDs{"a": f.asset("", nil)} },
			Method: "GET", Path: "/config/assets/{a}/content", Status: 409},
		{Name: "another customer's file is not found", Given: withPNG, Method: "GET", Path: "/config/assets/{a}/content",
			Token: func(f *catalogFixture) string { return f.Other }, Status: 404},
		{Name: "downloading needs config.assets.view", Given: withPNG, Method: "GET", Path: "/config/assets/{a}/content",
			Scopes: []string{"config.themes.view"}, Status: 403},
		{Name: "deleting an asset deletes its file", Given: withPNG, Method: "DELETE", Path: "/config/assets/{a}", Status: 200,
			Events: []string{"assets.deleted"},
			Then: func(f *catalogFixture, v apitest.IDs, _ *testenv.Resp) {
				n, err := f.P.Store.Collection(config.BlobCollection).Count(f.P.Ctx(), query.Eq("asset", v["a"]))
				require.NoError(f.T, err)
				assert.Zero(f.T, n)
				assert.Equal(f.T, http.StatusNotFound, f.P.Do("GET", "/config/assets/"+v["a"]+"/content", f.Admin, nil).Status)
			}},
		{Name: "the platform fields cannot be set", Method: "POST", Path: "/config/assets",
			Body: map[string]any{"name": "x", "contentType": "text/html"}, Status: 422, Field: "contentType"},
	})
}
