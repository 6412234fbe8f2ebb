// Command qferret is a throwaway FerretDB server for the query property test; delete it.
package main

import (
	"log/slog"
	"os"

	"platform/embedded"
)

func main() {
	_, err := embedded.StartFerretDB(os.Args[1], "127.0.0.1:27111", slog.Default())
	if err != nil {
		panic(err)
	}
	select {}
}
