package blocks

import (
	"html/template"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"platform/kernel/render"
)

// markdown renders one Markdown field through kernel/render, which
// sanitises it: its HTML is the only HTML a page takes as it is. The
// field's headings get ids unique on the whole page; inTOC adds them to
// the page's table of contents (a text block's, not an accordion answer's,
// which is hidden until opened).
func (r *renderer) markdown(body string, inTOC bool) (template.HTML, error) {
	out, err := render.Render(render.Input{Body: body, Format: render.Markdown, Glossary: r.in.Glossary, Links: r.in.Links})
	if err != nil {
		return "", err
	}
	for _, t := range out.Terms {
		r.terms[t] = true
	}
	for _, l := range out.BrokenLinks {
		r.broken[l] = true
	}
	rendered, err := r.uniqueIDs(out.HTML, out.TOC)
	if inTOC {
		r.toc = append(r.toc, out.TOC...)
	}
	return template.HTML(rendered), err
}

// uniqueIDs makes the ids of one field's headings unique on the page:
// kernel/render makes them unique within a field, and a page holds many.
// The first heading of a name keeps its slug, later ones get -2, -3, ...,
// as within one field, so ids stay stable while earlier blocks do not
// change. A renamed heading's in-field links (#slug) follow it.
func (r *renderer) uniqueIDs(rendered string, toc []render.Heading) (string, error) {
	renamed := map[string]string{}
	for i, h := range toc {
		if id := render.UniqueID(h.ID, r.taken); id != h.ID {
			renamed[h.ID], toc[i].ID = id, id
		}
	}
	if len(renamed) == 0 {
		return rendered, nil
	}
	return renameIDs(rendered, renamed)
}

// renameIDs rewrites the ids, and the fragment links to them, of
// kernel/render's output.
func renameIDs(rendered string, renamed map[string]string) (string, error) {
	body := &html.Node{Type: html.ElementNode, Data: "body", DataAtom: atom.Body}
	nodes, err := html.ParseFragment(strings.NewReader(rendered), body)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, n := range nodes {
		rename(n, renamed)
		if err := html.Render(&b, n); err != nil {
			return "", err
		}
	}
	return b.String(), nil
}

func rename(n *html.Node, renamed map[string]string) {
	for i, a := range n.Attr {
		switch {
		case a.Key == "id" && renamed[a.Val] != "":
			n.Attr[i].Val = renamed[a.Val]
		case a.Key == "href" && strings.HasPrefix(a.Val, "#") && renamed[a.Val[1:]] != "":
			n.Attr[i].Val = "#" + renamed[a.Val[1:]]
		}
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		rename(c, renamed)
	}
}
