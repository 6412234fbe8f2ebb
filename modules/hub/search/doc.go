// Package search is the hub's full-text search over a customer's wiki
// pages, FAQs and glossary entries. FerretDB has no text indexes, so the
// platform keeps an index of its own that both stores hold.
//
// Source of truth: the store. Every indexed record is one document of the
// scoped collection searchdocs (_id "customer:type:id": an _id is unique
// across customers) holding its metadata, its plain text (for snippets)
// and the token frequencies of its title and text, so an index can be
// rebuilt without tokenizing again. A per-customer counter (searchseq, an
// Upsert with Inc) gives every Put and Remove a sequence number; Remove
// leaves a tombstone carrying its number. A write only lands if the stored
// document has a lower number, so the store always holds the latest write,
// whatever order writers commit in.
//
// Cache: each process keeps an in-memory inverted index per customer (BM25
// needs document frequencies and lengths a store query cannot give
// cheaply). Before every Search it reads the counter (one Get on a tiny
// collection) and, only when that moved, the documents numbered above what
// it has applied. So another process's Put is seen by this process's next
// Search, and a quiet customer costs one Get per search.
//
// Gaps: writers commit out of order (5 and 6 taken, 6 commits first), so
// numbers not seen yet are kept as gaps and read again on each sync until
// they appear or GapGrace passes (a writer that died, or a write that was
// superseded before it landed). Every RebuildEvery the index is rebuilt
// from the store in the background, which bounds any staleness left by a
// gap given up on and drops the space of replaced documents.
//
// Ranking: BM25 over text and title (the title weighted so that its
// matches outrank body-only ones), the last word also as a prefix, scaled
// by the share of the query's weight matched (see score.go).
//
// Snippets are cut from the texts of the hits alone, read with a Get each.
// On FerretDB, which scans the whole collection for every read the store
// sends, the index holds the texts instead (Options.TextsInMemory); a
// write, and the first search after it, still cost a scan there.
//
// Memory: indexes of all customers share Options.CacheBytes, least recently
// used customers are dropped first and rebuilt on their next search.
package search
