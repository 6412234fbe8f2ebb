//go:build tools

// Package tools pins the commands `make cluster` builds.
package tools

import (
	_ "github.com/temporalio/ui-server/v2/cmd/server"
	_ "go.temporal.io/server/cmd/server"
	_ "go.temporal.io/server/cmd/tools/sql"
)
