# The two commands a newcomer needs: `make run` and `make test`.
GO        ?= go
BIN       := bin/platform
# -vet=off: `make test` runs the full `go vet ./...` first (every
# analyzer go test would run, and more, on the same packages with their
# tests); go test's own vet pass repeated it against the race build's
# export data, which is a separate cache entry, and again in the second
# pass. (The only race-tagged files are two one-line constants, which the
# -race compile still type-checks.)
TESTFLAGS ?= -race -count=1 -timeout 25m -vet=off
# The second pass runs the API suites on the embedded SQLite store without
# -race: the race detector instruments modernc's transpiled C, which made
# that pass three times slower than the first, and every Go line above the
# store has already run under -race in the first pass (the SQLite store's
# own tests included).
SQLITEFLAGS ?= -count=1 -timeout 25m -vet=off
# Only test binaries that reach a store through test/infra (the one reader
# of PLATFORM_TEST_STORE) behave differently on SQLite; the rest would run
# the very same tests as the first pass, only without -race.
SQLITEPKGS = $(shell $(GO) list -test -f '{{if eq .Name "main"}}{{range .Deps}}{{if eq . "platform/test/infra"}}{{$$.ImportPath}} {{end}}{{end}}{{end}}' ./cmd/platform/app/ ./modules/... ./worker/ | sed 's/\.test / /g')
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2
# Finds non-determinism in what workflows call (its own module; v0.6.0
# builds with our Go and SDK). Exceptions: workflows/workflowcheck.yaml
# and //workflowcheck:ignore comments, each with its reason.
WORKFLOWCHECK := go.temporal.io/sdk/contrib/tools/workflowcheck@v0.6.0

.PHONY: run build test vet lint bench clean cluster cluster-down cluster-tools cluster-packages test-cluster node-deps browser bench-oauth bench-webhooks bench-pipelines bench-dispatch bench-tracking bench-newsletters bench-hub bench-cms bench-flags bench-counts bench-notifier bench-ads bench-aggregation

run: build ## everything in one process on the embedded defaults (./data)
	$(BIN) dev

build:
	$(GO) build -o $(BIN) ./cmd/platform

vet:
	$(GO) vet ./...

test: vet build browser ## vet, then every test against real FerretDB and Temporal servers
	./test/with-infra.sh $(GO) test $(TESTFLAGS) ./...
	@echo "== the API suites again on the embedded SQLite store =="
	PLATFORM_TEST_STORE=sqlite ./test/with-infra.sh $(GO) test $(SQLITEFLAGS) $(SQLITEPKGS)

lint: vet
	@test -z "$$(gofmt -l . | tee /dev/stderr)" || (echo "gofmt: files above need formatting" && exit 1)
	$(GO) run $(STATICCHECK) ./...
	$(GO) run $(WORKFLOWCHECK) -config workflows/workflowcheck.yaml ./...

bench: build ## REST benchmark on both stores (API against the raw store, same run), store benchmarks
	./test/with-infra.sh $(GO) test -run '^$$' -bench 'BenchmarkREST' -benchtime 2000x -count 3 ./test/bench/
	$(GO) test -run '^$$' -bench . -benchtime 2s ./kernel/store/sqlitestore/

# Debian's chromium drives the consent page in oauth's browser test; curl,
# jq and python3 run the docs' walk-throughs (test/e2e); CI runs as root on
# a fresh Debian machine.
browser:
	@test -x /usr/bin/chromium || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; }
	@command -v curl >/dev/null && command -v jq >/dev/null && command -v python3 >/dev/null || \
		{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq curl jq python3; }

bench-oauth: build ## token issuance and API calls with token verification
	./test/with-infra.sh $(GO) test -run '^$$' -bench 'OAuth' -benchtime 3s ./test/bench/

bench-webhooks: build ## events delivered end to end, against a raw POST loop and trivial workflows
	./test/with-infra.sh $(GO) test -run '^$$' -bench 'Webhooks' -benchtime 1000x -timeout 30m ./test/bench/

bench-dispatch: build ## a bulk write with a triggered pipeline: write rate, dispatch rate, lag
	./test/with-infra.sh $(GO) test -run '^$$' -bench 'DispatchBulk' -benchtime 5000x -timeout 30m ./test/bench/

bench-newsletters: build ## a newsletter's send to a local SMTP server against a raw SMTP send loop (ratio)
	./test/with-infra.sh $(GO) test -run '^$$' -bench 'Newsletters' -benchtime 1000x -timeout 30m ./test/bench/

bench-pipelines: build ## pipeline runs (SQLite store) against trivial workflows on the same Temporal server, 3 runs
	./test/with-infra.sh $(GO) test -run '^$$' -bench 'PipelineRuns' -benchtime 300x -count 3 -timeout 30m ./test/bench/

bench-hub: build ## wiki page render, unchanged re-render and search over 10,000 pages against a get by id, both stores
	./test/with-infra.sh $(GO) test -run '^$$' -bench 'Hub' -benchtime 200x -timeout 30m ./test/bench/

bench-cms: build ## web page render (40 blocks), unchanged re-render, publish and the site against a get by id, both stores
	./test/with-infra.sh $(GO) test -run '^$$' -bench 'CMS' -benchtime 200x -timeout 30m ./test/bench/

bench-flags: build ## flag evaluations/s over HTTP (one flag, bulk of 50) against a get by id, both stores, and in process, same run
	./test/with-infra.sh $(GO) test -run '^$$' -bench 'Flags' -benchtime 3s -timeout 30m ./test/bench/

bench-counts: build ## list totals at 10,000 and 100,000 records: the counter and the capped count against a sorted page and the linear count, both stores
	./test/with-infra.sh $(GO) test -run '^$$' -bench 'Counts' -benchtime 2s -timeout 60m ./test/bench/

bench-notifier: build ## notifier fan-out to 500 WebSocket clients against webhook delivery of the same events, same run
	./test/with-infra.sh $(GO) test -run '^$$' -bench 'Notifier' -benchtime 1000x -timeout 30m ./test/bench/

bench-ads: build ## metric rows synced/s from the local ad platform (first sync, re-sync) against a raw loop of the same HTTP calls, both stores
	./test/with-infra.sh $(GO) test -run '^$$' -bench 'AdsSync' -benchtime 1x -timeout 30m ./test/bench/

bench-tracking: build ## open pixel and click redirect requests/s against a get by id, both stores, same run
	./test/with-infra.sh $(GO) test -run '^$$' -bench 'Tracking' -benchtime 2000x -timeout 30m ./test/bench/

bench-aggregation: build ## aggregation lag (p50/p99 from write to read model) under a steady write load against the raw write rate, both stores
	./test/with-infra.sh $(GO) test -run '^$$' -bench 'AggregationLag' -benchtime 1000x -timeout 30m ./test/bench/

# The scaled deployment on this machine (deploy/cluster.sh, docs/deploy.md):
# Debian's PostgreSQL and nginx, and the Temporal server, its SQL tool, its
# UI and FerretDB built from the module proxy (tools/cluster) once per
# version into CLUSTER_TOOLS, named by a hash of what they are built from.
CLUSTER_TOOLS ?= $(HOME)/.cache/platform/cluster-$(shell cat tools/cluster/go.mod tools/cluster/go.sum tools/cluster/clusterctl/*.go tools/cluster/ferretdb/*.go | sha256sum | cut -c1-16)
CLUSTER_CMDS := temporal-server=go.temporal.io/server/cmd/server temporal-sql-tool=go.temporal.io/server/cmd/tools/sql \
	temporal-ui-server=github.com/temporalio/ui-server/v2/cmd/server ferretdb=./ferretdb \
	clusterctl=./clusterctl

cluster: build cluster-packages cluster-tools ## start the cluster (data in ./cluster-data); prints where everything listens
	CLUSTER_TOOLS=$(CLUSTER_TOOLS) deploy/cluster.sh up

cluster-down: ## stop the cluster; the data stays in ./cluster-data
	CLUSTER_TOOLS=$(CLUSTER_TOOLS) deploy/cluster.sh down

test-cluster: build cluster-packages cluster-tools ## the Helm chart (lint, render), then a cluster of its own on fresh data: faults, the shared rate limit, throughput with one and two workers
	cd tools/helm && GOWORK=off $(GO) test -count=1 ./...
	CLUSTER_TOOLS=$(CLUSTER_TOOLS) PLATFORM_BIN=$(CURDIR)/$(BIN) $(GO) test -count=1 -v -timeout 30m ./test/cluster/

cluster-packages:
	@test -x /usr/sbin/nginx && ls -d /usr/lib/postgresql/*/bin >/dev/null 2>&1 || { apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends postgresql nginx; }

cluster-tools: $(CLUSTER_TOOLS)/.built

$(CLUSTER_TOOLS)/.built:
	@mkdir -p $(CLUSTER_TOOLS)
	cd tools/cluster && for c in $(CLUSTER_CMDS); do GOWORK=off $(GO) build -o $(CLUSTER_TOOLS)/$${c%%=*} $${c#*=} || exit 1; done
	rm -rf $(CLUSTER_TOOLS)/ui-config && cp -r "$$(cd tools/cluster && GOWORK=off $(GO) list -m -f '{{.Dir}}' github.com/temporalio/ui-server/v2)/config" $(CLUSTER_TOOLS)/ui-config && chmod -R u+w $(CLUSTER_TOOLS)/ui-config
	touch $@

clean:
	rm -rf bin
