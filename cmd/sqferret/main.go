// Command sqferret runs the embedded FerretDB for the store contract tests.
// Temporary: delete once the contract runs are done.
package main

import (
	"log/slog"
	"os"

	"platform/embedded"
)

func main() {
	dir := "/tmp/sqferret"
	if len(os.Args) > 1 {
		dir = os.Args[1]
	}
	f, err := embedded.StartFerretDB(dir, "127.0.0.1:27112", slog.Default())
	if err != nil {
		slog.Error("start", "err", err)
		os.Exit(1)
	}
	slog.Info("ferretdb", "uri", f.URI)
	select {}
}
