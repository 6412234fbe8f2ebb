// Package workflows holds the platform's Temporal workflow definitions. They
// are deterministic: every side effect runs in an activity (packages under
// activities). Workflows know activities and child workflows only by their
// names and types in package contract, so this package depends on no
// activity, module or HTTP code (deps_test.go checks it).
package workflows
