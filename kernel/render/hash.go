package render

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash"
	"sort"
)

// Hash identifies what Render would make of in: the same inputs give the
// same hash, and a stored page whose hash is unchanged need not be
// rendered again. It covers Version, the format, the body, the glossary
// entries Matching finds and the Links of the targets CrossLinks finds,
// each in a canonical order, so entries and links the body does not use
// leave it alone.
func Hash(in Input) string {
	h := sha256.New()
	WriteFields(h, Version, in.Format, in.Body)
	for _, t := range Matching(in.Body, in.Glossary) {
		aliases := append([]string(nil), t.Aliases...)
		sort.Strings(aliases)
		WriteFields(h, "term", t.ID, t.Term, t.URL, t.Definition)
		WriteFields(h, aliases...)
	}
	for _, target := range CrossLinks(in.Body, in.Format) {
		url, ok := in.Links[target]
		WriteFields(h, "link", target, boolString(ok), url)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// WriteFields adds each string with its length first, so no two
// sequences of strings hash alike (also for the CMS's page hash).
func WriteFields(h hash.Hash, fields ...string) {
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(len(fields)))
	h.Write(n[:])
	for _, f := range fields {
		binary.BigEndian.PutUint64(n[:], uint64(len(f)))
		h.Write(n[:])
		h.Write([]byte(f))
	}
}

func boolString(b bool) string {
	if b {
		return "1"
	}
	return "0"
}
