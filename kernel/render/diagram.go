package render

import (
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// diagramClass maps a code block's language to the class its diagram block
// gets; graphviz and dot are one language.
var diagramClass = map[string]string{
	"mermaid":  "mermaid",
	"plantuml": "plantuml",
	"graphviz": "graphviz",
	"dot":      "graphviz",
	"d2":       "d2",
}

// drawDiagrams is step 4: <pre><code class="language-mermaid">src</code></pre>
// becomes <pre class="mermaid">src</pre>, the form client-side renderers
// look for. The source becomes one text node, so it stays escaped text.
func drawDiagrams(root *html.Node) {
	walk(root, func(n *html.Node) bool {
		if n.Type != html.ElementNode || n.DataAtom != atom.Pre {
			return true
		}
		if class := diagramOf(n); class != "" {
			src := textOf(n)
			for c := n.FirstChild; c != nil; c = n.FirstChild {
				n.RemoveChild(c)
			}
			n.Attr = []html.Attribute{{Key: "class", Val: class}}
			n.AppendChild(&html.Node{Type: html.TextNode, Data: src})
		}
		return false
	})
}

// diagramOf is the diagram class of a pre holding only a code element in a
// diagram language, or "".
func diagramOf(pre *html.Node) string {
	code := pre.FirstChild
	if code == nil || code.NextSibling != nil || code.DataAtom != atom.Code {
		return ""
	}
	class, _ := attr(code, "class")
	lang, ok := strings.CutPrefix(class, "language-")
	if !ok {
		return ""
	}
	return diagramClass[strings.ToLower(lang)]
}
