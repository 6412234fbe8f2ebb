package config

import (
	"bytes"
	"image"
	_ "image/gif"  // DecodeConfig of GIF
	_ "image/jpeg" // DecodeConfig of JPEG
	_ "image/png"  // DecodeConfig of PNG
	"mime"
	"net/http"
	"sort"
	"strings"

	_ "golang.org/x/image/webp" // DecodeConfig of WebP

	"platform/api"
	"platform/kernel/resource"
)

// MaxImageSide bounds an image's width and height: a small file may claim
// a huge canvas (a decompression bomb for whoever draws it).
const MaxImageSide = 16384

// assetKind is a content type assets accept: what http.DetectContentType
// answers for it, the declared types that agree with that, and whether
// its width and height are read.
type assetKind struct {
	sniffed  string
	declared []string
	image    bool
}

// assetKinds are the accepted types. Anything that can run in a browser
// (HTML, SVG, XML, JavaScript) is refused outright rather than served
// defused: a logo or icon needs none of them (docs/config-catalog.md).
var assetKinds = []assetKind{
	{sniffed: "image/png", declared: []string{"image/png"}, image: true},
	{sniffed: "image/jpeg", declared: []string{"image/jpeg"}, image: true},
	{sniffed: "image/gif", declared: []string{"image/gif"}, image: true},
	{sniffed: "image/webp", declared: []string{"image/webp"}, image: true},
	{sniffed: "image/x-icon", declared: []string{"image/x-icon", "image/vnd.microsoft.icon"}},
	{sniffed: "image/bmp", declared: []string{"image/bmp"}},
	{sniffed: "application/pdf", declared: []string{"application/pdf"}},
	{sniffed: "font/woff", declared: []string{"font/woff"}},
	{sniffed: "font/woff2", declared: []string{"font/woff2"}},
	{sniffed: "font/ttf", declared: []string{"font/ttf"}},
	{sniffed: "font/otf", declared: []string{"font/otf"}},
	{sniffed: "text/plain; charset=utf-8", declared: []string{"text/plain", "text/csv"}},
}

// activeTypes are refused with 415 whatever the bytes are.
var activeTypes = []string{"text/html", "image/svg+xml", "application/xhtml+xml", "text/xml", "application/xml",
	"text/javascript", "application/javascript", "application/ecmascript"}

// assetType is what an upload is after its checks.
type assetType struct {
	contentType   string // as stored and served
	width, height int    // images only
}

// checkUpload decides the stored type of body declared as contentType:
// 415 for a type assets do not take (active content among them), 422 when
// the bytes are of another type than declared or an image cannot be read.
func checkUpload(contentType string, body []byte) (*assetType, error) {
	declared, _, err := mime.ParseMediaType(contentType)
	if err != nil || contentType == "" {
		return nil, unsupportedType("send the file with its Content-Type")
	}
	declared = strings.ToLower(declared)
	if isActive(declared) {
		return nil, unsupportedType("%s can run script in a browser, so assets refuse it", declared)
	}
	kind := kindDeclaring(declared)
	if kind == nil {
		return nil, unsupportedType("assets take %s, not %s", strings.Join(acceptedTypes(), ", "), declared)
	}
	sniffed := http.DetectContentType(body)
	if sniffed != kind.sniffed {
		return nil, resource.Invalid(resource.FieldError(resource.CodeFormat, "contentType",
			"the file was declared as %s but its content is %s", declared, sniffedName(sniffed)))
	}
	out := &assetType{contentType: declared}
	if strings.HasPrefix(kind.sniffed, "text/") {
		out.contentType = declared + "; charset=utf-8"
	}
	if kind.image {
		return out, out.readDimensions(body)
	}
	return out, nil
}

// readDimensions records an image's size from its header alone.
func (a *assetType) readDimensions(body []byte) error {
	cfg, _, err := image.DecodeConfig(bytes.NewReader(body))
	if err != nil {
		return resource.Invalid(resource.FieldError(resource.CodeFormat, "contentType", "the %s image cannot be read: %v", a.contentType, err))
	}
	if cfg.Width < 1 || cfg.Height < 1 || cfg.Width > MaxImageSide || cfg.Height > MaxImageSide {
		return resource.Invalid(resource.FieldError(resource.CodeRange, "width",
			"the image is %d×%d pixels; each side must be 1 to %d", cfg.Width, cfg.Height, MaxImageSide))
	}
	a.width, a.height = cfg.Width, cfg.Height
	return nil
}

func isActive(mt string) bool {
	for _, t := range activeTypes {
		if mt == t {
			return true
		}
	}
	return strings.HasSuffix(mt, "+xml")
}

func kindDeclaring(mt string) *assetKind {
	for i := range assetKinds {
		for _, d := range assetKinds[i].declared {
			if d == mt {
				return &assetKinds[i]
			}
		}
	}
	return nil
}

func acceptedTypes() []string {
	var out []string
	for _, k := range assetKinds {
		out = append(out, k.declared...)
	}
	sort.Strings(out)
	return out
}

// sniffedName is the sniffed type for a message: its media type, or
// "unrecognised data".
func sniffedName(s string) string {
	mt, _, _ := mime.ParseMediaType(s)
	if mt == "application/octet-stream" {
		return "unrecognised binary data"
	}
	return mt
}

func unsupportedType(format string, args ...any) error {
	return api.NewError(http.StatusUnsupportedMediaType, api.CodeMediaType, "contentType", format, args...)
}

// isImage reports whether an asset's stored type is a raster image that
// has its dimensions recorded (a theme's logo, an app's icon).
func isImage(contentType string) bool {
	k := kindDeclaring(contentType)
	return k != nil && k.image
}
