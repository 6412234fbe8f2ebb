// Package docs embeds these pages so the platform serves them at /docs/
// (api/portal): the guide a person reads is the one the binary was built
// with.
package docs

import "embed"

// FS holds every page of this folder.
//
//go:embed *.md
var FS embed.FS
