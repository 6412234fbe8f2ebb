// Command platform runs the business platform: `platform dev` runs
// everything in one process on embedded defaults; `api`, `worker` and
// `infra` are the roles of a scaled deployment; the rest are admin commands.
package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"platform/kernel/settings"
)

const usage = `usage: platform <command> [flags]

commands:
  dev        everything in one process: API, worker, embedded store and Temporal
  api        the HTTP API only (needs MONGODB_URI and TEMPORAL_ADDRESS)
  worker     the Temporal worker only (needs MONGODB_URI and TEMPORAL_ADDRESS)
  infra      only the embedded servers (FerretDB and Temporal with its UI)
  token      print an access token: --customer <slug> [--user <email>] --scope "<scopes>"
  customer   customer create <slug>: create a customer (idempotent), print its id
  rotate-signing-key  publish the next access-token signing key; it signs after --lead (1h)
  rotate-master-key   re-seal every credential and webhook secret under a new master key (docs/config-keys.md)
  check      run the self-check workflow through the worker and the store
  backup     backup --to <dir>: copy the store and Temporal while running
  migrate-store  migrate-store --to <MONGODB_URI>: copy the embedded store into MongoDB
  counts-repair  recount the documents behind the list totals' counters and fix drifted ones (docs/counts.md)
  aggregation  aggregation rebuild [--name <models>] [--customer <id>]: recount the read models (docs/aggregation.md)
  compute-sim  serve the compute provider simulator (docs/config-computing.md) for local tries
  ads-sim    serve the ad platform simulator (docs/ads.md) with a seeded account, for local tries
  sandbox    (internal) the child process the worker runs user code in

Run "platform <command> -h" for a command's flags, "platform <command> --help-settings" for the settings.`

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, usage)
		os.Exit(2)
	}
	cmd, args := os.Args[1], os.Args[2:]
	if cmd == "-h" || cmd == "--help" || cmd == "help" {
		fmt.Println(usage)
		return
	}
	run, ok := commands[cmd]
	if !ok {
		fmt.Fprintf(os.Stderr, "platform: unknown command %q (see: platform -h)\n", cmd)
		os.Exit(2)
	}
	os.Exit(exitCode(cmd, run(args)))
}

// exitCode prints the outcome of a command and says how to exit: 0 for
// success and help, 2 for a bad setting or command line (one line naming
// it), 1 for any other failure.
func exitCode(cmd string, err error) int {
	var (
		help  *settings.Help
		inv   *settings.InvalidError
		usage *settings.UsageError
	)
	switch {
	case err == nil:
		return 0
	case errors.As(err, &help):
		if s := summary(cmd); s != "" {
			fmt.Printf("platform %s: %s\n\n", cmd, s)
		}
		fmt.Print(help.Text)
		return 0
	}
	fmt.Fprintf(os.Stderr, "platform %s: %v\n", cmd, err)
	if errors.As(err, &inv) || errors.As(err, &usage) {
		return 2
	}
	return 1
}

var commands = map[string]func([]string) error{
	"dev":                runDev,
	"api":                runAPI,
	"worker":             runWorker,
	"infra":              runInfra,
	"token":              runToken,
	"customer":           runCustomer,
	"rotate-signing-key": runRotateSigningKey,
	"rotate-master-key":  runRotateMasterKey,
	"check":              runCheck,
	"backup":             runBackup,
	"migrate-store":      runMigrateStore,
	"sandbox":            runSandbox,
	"compute-sim":        runComputeSim,
	"counts-repair":      runCountsRepair,
	"ads-sim":            runAdsSim,
	"aggregation":        runAggregation,
}

// summary is a command's line of the usage text.
func summary(cmd string) string {
	for _, line := range strings.Split(usage, "\n") {
		if f := strings.Fields(line); len(f) > 1 && f[0] == cmd && strings.HasPrefix(line, "  ") {
			return strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), cmd))
		}
	}
	return ""
}
