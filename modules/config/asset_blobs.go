package config

import (
	"context"
	"encoding/base64"
	"fmt"
	"sort"

	"platform/kernel/query"
	"platform/kernel/resource"
	"platform/kernel/store"
)

// BlobCollection holds the bytes of assets, in chunks of the customer's
// scope (the store adds the customer to every query), so every API and
// worker replica reads the same files and a customer never reads another's.
const BlobCollection = "assetblobs"

// blobChunk is the size of one chunk before base64: far below any store's
// document limit (16 MiB in MongoDB) and small enough to stream.
const blobChunk = 256 << 10

// blobs stores an asset's bytes per upload: each upload writes its chunks
// under a new generation id, the asset record then points at it, and the
// previous generation is removed. A reader thus never sees a mix of two
// uploads, and an upload that fails part-way leaves only orphan chunks
// of a generation nobody points at (removed with the asset).
type blobs struct{ st store.Store }

func (b blobs) coll() store.Collection { return b.st.Collection(BlobCollection) }

// indexes let a download find its chunks without a scan on MongoDB.
func blobIndexes() []store.Index {
	return []store.Index{{Name: "by_asset_gen", Keys: []store.SortField{{Field: "asset"}, {Field: "gen"}, {Field: "n"}}}}
}

// put writes data as generation gen of asset.
func (b blobs) put(ctx context.Context, asset, gen string, data []byte) error {
	var docs []store.Doc
	for n, off := 0, 0; off < len(data); n, off = n+1, off+blobChunk {
		end := min(off+blobChunk, len(data))
		docs = append(docs, store.Doc{"asset": asset, "gen": gen, "n": int64(n), "data": base64.StdEncoding.EncodeToString(data[off:end])})
	}
	for _, d := range docs {
		if err := b.coll().Insert(ctx, d); err != nil {
			return resource.Unavailable("the file could not be stored; try again").WithCause(err)
		}
	}
	return nil
}

// get reads generation gen of asset, checking it has size bytes.
func (b blobs) get(ctx context.Context, asset, gen string, size int64) ([]byte, error) {
	docs, err := b.coll().Find(ctx, store.FindOptions{Filter: query.AllOf(query.Eq("asset", asset), query.Eq("gen", gen))})
	if err != nil {
		return nil, resource.Unavailable("the file cannot be read now; try again").WithCause(err)
	}
	sort.Slice(docs, func(i, j int) bool { return num(docs[i]["n"]) < num(docs[j]["n"]) })
	out := make([]byte, 0, size)
	for i, d := range docs {
		if num(d["n"]) != int64(i) {
			return nil, fmt.Errorf("asset %s generation %s: chunk %d missing", asset, gen, i)
		}
		part, err := base64.StdEncoding.DecodeString(str(d["data"]))
		if err != nil {
			return nil, fmt.Errorf("asset %s chunk %d: %w", asset, i, err)
		}
		out = append(out, part...)
	}
	if int64(len(out)) != size {
		return nil, fmt.Errorf("asset %s generation %s: %d bytes stored, %d recorded", asset, gen, len(out), size)
	}
	return out, nil
}

// drop removes generation gen of asset.
func (b blobs) drop(ctx context.Context, asset, gen string) error {
	_, err := b.coll().Delete(ctx, query.AllOf(query.Eq("asset", asset), query.Eq("gen", gen)))
	return err
}

// dropAll removes every chunk of asset, orphans of failed uploads included.
func (b blobs) dropAll(ctx context.Context, asset string) error {
	_, err := b.coll().Delete(ctx, query.Eq("asset", asset))
	return err
}

// num reads a stored integer; -1 when absent, so a damaged chunk never
// matches its place.
func num(v any) int64 {
	if v == nil {
		return -1
	}
	return store.Int(v)
}
