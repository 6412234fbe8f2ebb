# The two commands a newcomer needs: `make run` and `make test`.
GO        ?= go
BIN       := bin/platform
TESTFLAGS ?= -race -count=1 -timeout 25m
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@2025.1.1

.PHONY: run build test vet lint bench clean node-deps

run: build ## everything in one process on the embedded defaults (./data)
	$(BIN) dev

build:
	$(GO) build -o $(BIN) ./cmd/platform

vet:
	$(GO) vet ./...

test: vet build ## vet, then every test against real FerretDB and Temporal servers
	./scripts/with-infra.sh $(GO) test $(TESTFLAGS) ./...

lint: vet
	@test -z "$$(gofmt -l . | tee /dev/stderr)" || (echo "gofmt: files above need formatting" && exit 1)
	$(GO) run $(STATICCHECK) ./...

bench: build ## REST benchmark: API against the raw store, same run
	./scripts/with-infra.sh $(GO) test -run '^$$' -bench . -benchtime 3s -count 3 ./api/... ./store/...

clean:
	rm -rf bin
