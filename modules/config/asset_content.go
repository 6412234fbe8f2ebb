package config

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"mime"
	"net/http"
	"strings"
	"sync"
	"time"

	"platform/api"
	"platform/kernel/query"
	"platform/kernel/resource"
	"platform/kernel/store"
)

// ContentPath is where an asset's file is sent and read.
const ContentPath = "/assets/:id/content"

// assetFiles serves the files of assets.
type assetFiles struct {
	svc      *resource.Service
	maxBytes int64
	indexed  sync.Once
}

// ensureIndexes declares the chunks' index once per process (the chunks
// are no resource, so mounting the module does not).
func (a *assetFiles) ensureIndexes(ctx context.Context) {
	a.indexed.Do(func() {
		if err := a.svc.Store.EnsureIndexes(ctx, BlobCollection, true, blobIndexes()); err != nil {
			a.svc.Log.WarnContext(ctx, "the index of asset chunks could not be made", "error", err.Error())
		}
	})
}

func (a *assetFiles) resource() *resource.Resource { return a.svc.Registry.Get("config", "assets") }

// upload stores the body as the asset's file, replacing any earlier one:
// 413 past the size limit, 415 for a type assets do not take, 422 when
// the bytes are not of the declared type. The record then holds the
// file's type, size, hash and (images) dimensions, and the event
// assets.uploaded is emitted.
func (a *assetFiles) upload(req *api.Request) (*api.Response, error) {
	r := a.resource()
	old, err := a.svc.Load(req.Ctx, r, req.Param("id"))
	if err != nil {
		return nil, err
	}
	body, err := req.BodyUpTo(a.maxBytes)
	if err != nil {
		return nil, err
	}
	if len(body) == 0 {
		return nil, resource.Invalid(resource.FieldError(resource.CodeRequired, "content", "the body is the file to store; it is empty"))
	}
	kind, err := checkUpload(req.Header("Content-Type"), body)
	if err != nil {
		return nil, err
	}
	a.ensureIndexes(req.Ctx)
	id, gen := str(old["_id"]), store.NewID()
	b := blobs{a.svc.Store}
	if err := b.put(req.Ctx, id, gen, body); err != nil {
		return nil, err
	}
	// The record moves from the generation read to the new one only if no
	// other upload moved it meanwhile: then exactly one upload replaces
	// each generation, and only it removes that generation's chunks.
	where := query.AllOf(query.ID(id), sameGeneration(old["generation"]))
	saved, err := a.svc.Apply(req.Ctx, r, where, resource.Change{Set: fileFields(kind, body, gen), Unset: noDimensions(kind), Event: "uploaded"})
	if err != nil {
		_ = b.drop(req.Ctx, id, gen) // nobody points at the new chunks
		if resource.KindOf(err) == resource.KindNotFound {
			return nil, resource.Conflict("content", "another upload or a delete changed the asset meanwhile; read it and try again")
		}
		return nil, err
	}
	if prev := str(old["generation"]); prev != "" {
		if err := b.drop(req.Ctx, id, prev); err != nil {
			a.svc.Log.WarnContext(req.Ctx, "old chunks of an asset stay behind", "asset", id, "error", err.Error())
		}
	}
	return &api.Response{Payload: saved}, nil
}

// sameGeneration matches an asset still pointing at gen (none: no file).
func sameGeneration(gen any) query.Expr {
	if gen == nil {
		return query.Field{Path: "generation", Conds: []query.Cond{query.Exists{Want: false}}}
	}
	return query.Eq("generation", gen)
}

func fileFields(kind *assetType, body []byte, gen string) store.Doc {
	sum := sha256.Sum256(body)
	set := store.Doc{"status": AssetReady, "contentType": kind.contentType, "size": int64(len(body)),
		"sha256": hex.EncodeToString(sum[:]), "generation": gen, "uploadedAt": time.Now().UTC().Truncate(time.Millisecond)}
	if kind.width > 0 {
		set["width"], set["height"] = int64(kind.width), int64(kind.height)
	}
	return set
}

// noDimensions drops the dimensions of an earlier image when the new
// file is none.
func noDimensions(kind *assetType) []string {
	if kind.width > 0 {
		return nil
	}
	return []string{"width", "height"}
}

// download answers the file with the headers a browser must heed: its
// type (never sniffed), its hash as ETag (If-None-Match answers 304), a
// sandboxing CSP, and inline only for images.
func (a *assetFiles) download(req *api.Request) (*api.Response, error) {
	doc, err := a.svc.Load(req.Ctx, a.resource(), req.Param("id"))
	if err != nil {
		return nil, err
	}
	if doc["status"] != AssetReady {
		return nil, resource.Conflict("content", "the asset has no file yet: upload it to /assets/%s/content", doc["_id"])
	}
	h := fileHeaders(doc)
	if etagMatches(req.Header("If-None-Match"), h.Get("ETag")) {
		return &api.Response{Status: http.StatusNotModified, Raw: []byte{}, Header: h}, nil
	}
	data, err := blobs{a.svc.Store}.get(req.Ctx, str(doc["_id"]), str(doc["generation"]), num(doc["size"]))
	if err != nil {
		return nil, err
	}
	return &api.Response{Raw: data, ContentType: str(doc["contentType"]), Header: h}, nil
}

func fileHeaders(doc store.Doc) http.Header {
	disposition := "attachment"
	if strings.HasPrefix(str(doc["contentType"]), "image/") {
		disposition = "inline"
	}
	return http.Header{
		"Etag":                    {`"` + str(doc["sha256"]) + `"`},
		"Cache-Control":           {"private, no-cache"},
		"X-Content-Type-Options":  {"nosniff"},
		"Content-Security-Policy": {"default-src 'none'; sandbox"},
		"Content-Disposition":     {mime.FormatMediaType(disposition, map[string]string{"filename": fileName(doc)})},
	}
}

// fileName is the asset's name as a download's file name.
func fileName(doc store.Doc) string {
	name := strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || strings.ContainsRune(`"\/`, r) {
			return '_'
		}
		return r
	}, str(doc["name"]))
	if name == "" {
		name = fmt.Sprintf("asset-%s", doc["_id"])
	}
	return name
}

// etagMatches reads If-None-Match: a list of entity tags, or *.
func etagMatches(header, etag string) bool {
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == "*" || t == etag {
			return true
		}
	}
	return false
}
