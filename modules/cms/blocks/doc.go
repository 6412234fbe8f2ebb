// Package blocks declares the blocks a CMS web page (or snippet) is built
// of, checks what the declaration cannot say, and renders a page of blocks
// into a whole HTML document. It is pure: no store, no HTTP, no Temporal;
// the caller loads the page's snippets and glossary and resolves its
// cross-links first, and uses Hash to skip pages whose inputs have not
// changed.
//
// A block is a union on its "type" (Field): common fields (_id, order,
// visible, responsiveSettings) plus the fields of its variant. Check adds
// the rules a declaration cannot express, AssignIDs gives new blocks their
// ids, and Texts and SetTexts list and replace the human-readable strings
// for translation, derived from the declaration.
//
// Render is safe by construction rather than by cleaning afterwards:
//
//   - Markdown fields go through kernel/render (sanitised there, with
//     glossary links and cross-links) and are the only HTML inserted as is;
//   - every other value is escaped by html/template;
//   - URLs keep only http, https and relative ones; an unsafe one is
//     dropped, never neutralised into a link;
//   - an embed's iframe is built from the video or map id parsed out of an
//     allow-listed provider URL, never from markup a client sent;
//   - the document holds no script, no style element and no style
//     attribute, so a strict Content-Security-Policy (FrameSources for
//     frame-src) can serve it; layout comes from CSS classes.
package blocks
