// Package render turns the body of a wiki page (and later a CMS web page)
// into the HTML the platform serves. It is pure: no store, no HTTP, no
// Temporal; the activity that calls it gathers the glossary and resolves the
// cross-links first (CrossLinks, Matching), and uses Hash to skip pages whose
// inputs have not changed.
//
// Render runs these steps, in this order:
//
//  1. Markdown (CommonMark + GFM) to HTML with goldmark; an "html" body is
//     taken as it is. Raw HTML in Markdown is let through, because step 2
//     cleans everything alike.
//  2. Sanitise with a bluemonday allow-list, then parse into an HTML tree.
//     External links get rel="nofollow noopener"; task-list checkboxes are
//     the only input elements left.
//  3. Link glossary terms: first mention per section, whole words, longest
//     match, never inside code, pre, links or headings.
//  4. Turn diagram code blocks (mermaid, plantuml, graphviz/dot, d2) into
//     <pre class="LANG"> holding the escaped source, for client-side drawing.
//  5. Give every heading a stable, unique id and list them as the TOC.
//  6. Resolve wiki:<kb>/<slug> links to public URLs; a dangling or
//     malformed one becomes plain text and is reported.
//
// The order is the point: the author's content is sanitised before anything
// is added, so every element and attribute the platform adds afterwards
// (glossary links, diagram blocks, heading ids, resolved hrefs) is built by
// this package as tree nodes and escaped by the serialiser, and never
// passes through, or depends on, the sanitiser. Headings get their ids
// after the sanitiser dropped the author's ids, so ids never clash.
package render
