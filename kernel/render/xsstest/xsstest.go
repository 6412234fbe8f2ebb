// Package xsstest holds the XSS corpus the render tests feed through
// every path into a page: kernel/render's sanitiser and the CMS's blocks.
// Most vectors come from the OWASP filter-evasion cheat sheet.
package xsstest

import (
	"bufio"
	_ "embed"
	"strings"
)

//go:embed xss.txt
var corpus string

// Vectors are the corpus's vectors: one a line, "#" lines are comments.
func Vectors() []string {
	var vectors []string
	sc := bufio.NewScanner(strings.NewReader(corpus))
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for sc.Scan() {
		if line := sc.Text(); line != "" && !strings.HasPrefix(line, "#") {
			vectors = append(vectors, line)
		}
	}
	return vectors
}
