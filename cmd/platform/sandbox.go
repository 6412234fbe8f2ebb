package main

import (
	"errors"
	"os"

	"platform/sandbox"
)

// runSandbox is the child the worker's sandbox.Pool starts to run user
// code (JavaScript, JSONata) outside its own process: it answers JSON
// requests on stdin with JSON results on stdout until stdin closes.
func runSandbox(args []string) error {
	if len(args) > 0 {
		return errors.New("takes no arguments: the worker starts it and talks to it on stdin/stdout")
	}
	protocol := os.Stdout
	// Anything else that prints must not corrupt the protocol stream.
	os.Stdout = os.Stderr
	return sandbox.ServeChild(os.Stdin, protocol)
}
