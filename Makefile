# lbsim — see README.md. Every target works on a fresh Debian 12 machine with Go.
GO        ?= go
BIN       := bin
WASM_EXEC := $(shell $(GO) env GOROOT)/lib/wasm
CYCLES    ?= 100000

.PHONY: all build run demo switch deps test test-native test-wasm vet bench docs generate fmt clean

all: build

## build: the lbsim command into bin/
build:
	$(GO) build -o $(BIN)/lbsim ./cmd/lbsim

## run: the required run: 20 servers, 100,000 cycles, quiet, writes logs/
run: build
	$(BIN)/lbsim run --servers 20 --cycles $(CYCLES) --quiet --log-dir logs --timeline logs/timeline.csv --json logs/summary.json

## demo: a short verbose run in colour
demo: build
	$(BIN)/lbsim run --servers 4 --cycles 60 --initial-per-server 3 --rate 0.6 --task-min 2 --task-max 9 \
		--seed 7 --verbose --fault down:2@20 --fault up:2@35

## switch: the P/S switch: P requests to one balancer, S to another
switch: build
	$(BIN)/lbsim run --switch --servers 20 --cycles $(CYCLES) --stream-share 35 --quiet

## deps: install the Debian packages the build and tests need (skips what is present)
deps:
	bash .ci/deps.sh

## test: every test: vet, native tests, and the model's tests under WebAssembly (Node)
test: deps
	$(MAKE) vet test-native test-wasm

vet:
	$(GO) vet ./...
	GOOS=js GOARCH=wasm $(GO) vet $$(GOOS=js GOARCH=wasm $(GO) list ./... )

test-native:
	$(GO) test ./...

# Packages that do not import ebiten run under Node with go_js_wasm_exec.
test-wasm:
	PATH="$$PATH:$(WASM_EXEC)" GOOS=js GOARCH=wasm $(GO) test -short \
		$$(GOOS=js GOARCH=wasm $(GO) list -f '{{.ImportPath}}{{range .Deps}}{{if eq . "github.com/hajimehoshi/ebiten/v2"}} EBITEN{{end}}{{end}}' ./... | grep -v EBITEN)

## bench: the model's benchmarks (compare runs with benchstat)
bench:
	$(GO) test -run '^$$' -bench . -count 6 ./sim/...

## docs: serve the API documentation on http://127.0.0.1:6060 (pkgsite, Go's own doc server)
docs:
	@echo "API documentation: http://127.0.0.1:6060/github.com/lbsim/lbsim/sim"
	$(GO) run golang.org/x/pkgsite/cmd/pkgsite@v0.6.0 -http 127.0.0.1:6060 .

## generate: regenerate committed generated code (msgp)
generate:
	$(GO) generate ./...

fmt:
	gofmt -l -w .

clean:
	rm -rf $(BIN) logs dist
