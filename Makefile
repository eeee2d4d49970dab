# lbsim — see README.md. Every target works on a fresh Debian 12 machine with Go
# (run as root, or with sudo available, for `make deps`).
GO        ?= go
BIN       := bin
DIST      ?= dist
# brotli quality for the page's lbsim.wasm.br: 11 is smallest (the size README quotes; tens of
# seconds), serve uses 5 (quicker, larger: it is local)
BROTLI_Q  ?= 11
# Where make serve listens: make serve ADDR=127.0.0.1:9000 (or 0.0.0.0:8080 for the network).
ADDR      ?= 127.0.0.1:8080
# The version the CLI, the page and the window carry: the commit, and whether the tree had
# changes (go build records both itself only for native builds with VCS stamping on; the page
# never gets them that way, so they are given to every build here, as the e2e tests do too).
REVISION  := $(shell git rev-parse HEAD 2>/dev/null)
MODIFIED  := $(shell git status --porcelain 2>/dev/null | head -c 1)
VERSION_X := -X github.com/lbsim/lbsim/version.revision=$(REVISION)$(if $(MODIFIED), -X github.com/lbsim/lbsim/version.modified=true)
GOROOT    := $(shell $(GO) env GOROOT)
WASM_EXEC := $(GOROOT)/lib/wasm
CYCLES    ?= 100000
# The run's seed; empty: a random one, printed (the README's figures are seed 1).
SEED      ?=
# The CPU profile that profile-guided optimization applies to bin/lbsim.
PGO       := cmd/lbsim/default.pgo
# The page is built smaller than a plain go build makes it, doing the same (internal/wasmoverlay says
# how: without text/template and ebiten's screenshot code, inlining off where it buys nothing), in the
# workspace that internal/cmd/wasmoverlay writes into $(WASM_BUILD) with the flags it writes there.
WASM_BUILD := $(BIN)/wasm-build
WASM_GO     = GOWORK=$(CURDIR)/$(WASM_BUILD)/go.work GOOS=js GOARCH=wasm $(GO)
WASM_FLAGS  = $$(cat $(WASM_BUILD)/flags)
# The packages the page is built from that do not import ebiten: their tests run under WebAssembly.
PURE       = $$(GOOS=js GOARCH=wasm $(GO) list -deps -f '{{.ImportPath}}{{range .Deps}}{{if eq . "github.com/hajimehoshi/ebiten/v2"}} EBITEN{{end}}{{end}}' ./wasm | grep '^github.com/lbsim/' | grep -v EBITEN)

.PHONY: all build install run demo switch wasm-build web serve desktop deps test test-long vet vet-native vet-wasm vet-display test-native test-wasm test-arm64 test-display test-e2e soak bench bench-compare pgo docs docs-figures docs-page docs-outputs docs-pictures docs-size docs-settings generate fmt clean

all: build

## build: the lbsim command into bin/
build:
	$(GO) build -ldflags "$(VERSION_X)" -o $(BIN)/lbsim ./cmd/lbsim

## install: the lbsim command into go env GOBIN, or $(go env GOPATH)/bin (go install ./cmd/lbsim does the same)
install:
	$(GO) install -ldflags "$(VERSION_X)" ./cmd/lbsim
	@dir="$$($(GO) env GOBIN)"; dir="$${dir:-$$($(GO) env GOPATH)/bin}"; \
	case ":$$PATH:" in *":$$dir:"*) echo "make install: $$dir/lbsim (on your PATH: run lbsim)";; \
	*) echo "make install: $$dir/lbsim; $$dir is not on your PATH: export PATH=\"\$$PATH:$$dir\" (add it to ~/.profile)";; esac

## run: the required run: 20 servers, 100,000 cycles, quiet, writes logs/ (SEED=1 gives the README's figures)
run: build
	$(BIN)/lbsim run --servers 20 --cycles $(CYCLES) --quiet --log-dir logs --timeline logs/timeline.csv $(if $(SEED),--seed $(SEED))
	@echo "make run: logs in $(CURDIR)/logs (summary, events, timeline.csv); the seed is printed above$(if $(SEED),, (random): make run SEED=1 gives the figures the README quotes)"

## demo: a short verbose run in colour
demo: build
	$(BIN)/lbsim run --servers 4 --cycles 60 --initial-per-server 3 --rate 0.6 --task-min 2 --task-max 9 \
		--seed 7 --verbose --fault down:2@20 --fault up:2@35

## switch: the P/S switch: P requests to one balancer, S to another
switch: build
	$(BIN)/lbsim run --switch --servers 20 --cycles $(CYCLES) --stream-share 35 --quiet

## web: a self-contained dist/ for any static host (index.html, wasm_exec.js, lbsim.wasm and its gzip and brotli copies)
web: wasm-build
	mkdir -p $(DIST)
	$(WASM_GO) build $(WASM_FLAGS) -ldflags="-s -w $(VERSION_X)" -o $(DIST)/lbsim.wasm ./wasm
	cp index.html $(DIST)/index.html
	cp $(WASM_EXEC)/wasm_exec.js $(DIST)/wasm_exec.js
	gzip -9 -k -f $(DIST)/lbsim.wasm
	@if command -v brotli >/dev/null; then brotli -q $(BROTLI_Q) -k -f $(DIST)/lbsim.wasm; \
	else echo "no brotli command, so no lbsim.wasm.br (make deps installs it)"; fi
	@ls -l $(DIST)/lbsim.wasm*

# wasm-build: the workspace and overlay the page's build and vet use (checks ebiten's version first)
wasm-build:
	$(GO) run ./internal/cmd/wasmoverlay -o $(WASM_BUILD)

## serve: build the page and serve it on http://127.0.0.1:8080 (ADDR=HOST:PORT for another; a quicker brotli: it is local)
serve: BROTLI_Q = 5
serve: web
	$(GO) run ./cmd/lbsim-serve -dir $(DIST) -addr $(ADDR)

## desktop: build and open the native window (needs `make deps`; ARGS="--seed 42" passes flags)
desktop: deps
	mkdir -p $(BIN)
	$(GO) build -ldflags "$(VERSION_X)" -o $(BIN)/lbsim-desktop ./cmd/lbsim-desktop
	./$(BIN)/lbsim-desktop $(ARGS)

## deps: install the Debian packages the builds and tests need (skips what is present)
deps:
	bash .ci/deps.sh

## test: every test: vet, native and wasm tests, the ebiten tests under Xvfb, the page in headless Chromium, the desktop window
test: deps
	$(MAKE) vet-native
	$(MAKE) -j2 --output-sync=target test-e2e vet-wasm vet-display test-native test-wasm test-arm64 test-display TESTVET=-vet=off

# After the native vet, the other steps run two at a time: test-e2e, the
# longest, spends most of its time waiting on Chromium and the window, not
# compiling, so the WebAssembly and display vets and the other test steps run
# beside it, one after another in a second slot. Each step's output is
# printed whole when it ends (--output-sync); the first failure stops further
# steps from starting, the running one finishes, and make test fails.

# go test runs a subset of vet's checks on what it tests, and their facts on
# every dependency, standard library included, under flags of its own (so
# shares nothing with `go vet`'s). `make test` runs the vet targets too,
# which check the same packages in the same configurations (native, wasm,
# the display tag) with all of vet's checks, so it turns the test steps' vet
# off (TESTVET=-vet=off); alone, each test target vets as go test does.
# test-arm64 keeps its vet: no vet run covers arm64.
TESTVET ?=

# The checks build without profile-guided optimization. cmd/lbsim/default.pgo
# (-pgo=auto) made go vet ./..., go test ./cmd/lbsim and the e2e tests' build
# of cmd/lbsim compile cmd/lbsim and all it imports, the standard library
# included, a second time with the profile (beside the plain build every other
# package uses). The profile changes what the compiler inlines, not what the
# code does; bin/lbsim (make build) and make bench keep it. The e2e tests
# build cmd/lbsim themselves: -pgo=off reaches them through GOFLAGS (added
# to what go env GOFLAGS already holds).
NOPGO := -pgo=off

# Under WebAssembly, only what is built for it: the page and the packages
# its tests run (the command line's tools and the browser tests are native).
vet: vet-native vet-wasm vet-display
vet-native:
	$(GO) vet $(NOPGO) ./...
vet-wasm: wasm-build
	$(WASM_GO) vet $(WASM_FLAGS) ./wasm/... $(PURE)
vet-display:
	$(GO) vet -tags display ./render/...

# Everything that needs no display; the e2e tests run in test-e2e.
test-native:
	$(GO) test $(NOPGO) $(TESTVET) $$($(GO) list ./... | grep -v '/e2e$$')

## test-long: the core's property tests at length, with seeds other than CI's: run it before a change to RunTo lands (minutes, not seconds)
test-long:
	for seed in 2 3 4; do $(GO) test ./sim -run 'TestRunToMatchesStepping$$' -rapid.checks 10000 -rapid.seed $$seed || exit 1; done
	$(GO) test ./sim -run 'TestProperties$$' -rapid.checks 20000 -rapid.seed 3
	$(GO) test ./sim -run 'TestReferenceMatchesModel|TestRunToPoolDips' -rapid.checks 3000 -rapid.seed 2
	$(GO) test ./sim -run 'TestCompact|TestRoutersRenumber|TestReferenceMatchesModelClient|TestClientRunToMatchesStepping' -rapid.checks 2000 -rapid.seed 5

# The packages the page is built from (PURE: those that do not import
# ebiten) run their tests under Node with go_js_wasm_exec; the command
# line's packages never run in a browser, so they are tested natively
# only. -short shortens the M/M/c runs (same checks, wider intervals).
# The page's flags (here and in vet-wasm) as make web's build, which the e2e
# tests build the page as: the packages all three compile for WebAssembly
# (std among them; vet compiles what it imports) are then compiled once,
# not once per set of flags, and tested as the page runs them.
test-wasm: wasm-build
	PATH="$$PATH:$(WASM_EXEC)" $(WASM_GO) test $(WASM_FLAGS) $(TESTVET) -short $(PURE)

# The model's golden tests on a third architecture, arm64 under qemu-user
# (make deps installs it): arm64 fuses multiply-adds where amd64 does not, so
# "the same results everywhere" is tested, not assumed. -short, as for wasm.
test-arm64:
	GOARCH=arm64 CGO_ENABLED=0 $(GO) test -short -exec qemu-aarch64 -run 'Golden|EventHashes' ./sim/ ./sim/snapshot/ ./queueing/
	GOARCH=arm64 CGO_ENABLED=0 $(GO) test -short -exec qemu-aarch64 ./detmath/

# Packages that import ebiten need a display: their tests carry the
# `display` build tag and run under Xvfb. xvfb-run -a takes the first display
# without a lock file from :99 up, and so do the e2e tests' windows, which
# make test may run at the same moment: this one looks from :200 up, so the
# two cannot pick the same number before either has locked it.
test-display:
	xvfb-run -a -n 200 $(GO) test $(TESTVET) -tags display -bench . -benchtime 100x ./render

# The page in headless Chromium and the desktop window under Xvfb; screenshots in test-output/.
test-e2e:
	mkdir -p $(CURDIR)/test-output
	GOFLAGS="$$($(GO) env GOFLAGS) $(NOPGO)" $(GO) test $(TESTVET) -v -count=1 -timeout 30m ./render/e2e -test.outputdir=$(CURDIR)/test-output

## soak: the page with the client side on, left running LBSIM_SOAK (15m) in headless Chromium: memory flat, page responsive
soak:
	LBSIM_SOAK=$(or $(LBSIM_SOAK),15m) $(GO) test -v -count=1 -timeout 60m -run TestSoakClientSide ./render/e2e

## bench: the model's benchmarks, built with the profile bin/lbsim is built with (compare runs with benchstat)
bench:
	$(GO) test -run '^$$' -bench . -count 6 -pgo=$(PGO) ./sim/...

## pgo: profile the core's benchmarks (pooled and per-server) into $(PGO), which go build applies to bin/lbsim (profile-guided optimization)
pgo:
	mkdir -p $(BIN)
	$(GO) test -run '^$$' -bench 'DefaultRun|LargePool|SparseRun|PerServer' -benchtime 2s -cpuprofile $(PGO) -o $(BIN)/sim.test ./sim/

## bench-compare: the core's benchmarks of REV against the working tree, run in turn (make bench-compare REV=main)
bench-compare:
	scripts/bench-compare.sh $(or $(REV),HEAD)

## docs: serve the API documentation on http://127.0.0.1:6060 (pkgsite, Go's own doc server)
docs:
	@echo "API documentation: http://127.0.0.1:6060/github.com/lbsim/lbsim/sim"
	$(GO) run golang.org/x/pkgsite/cmd/pkgsite@v0.6.0 -http 127.0.0.1:6060 .

## docs-figures: rewrite the figures the docs quote (the page's sizes and start-up times, the default run's snapshot and link, the e2e tests) with what they measure; TestDocsFigures and TestDocsPageFigures check them
docs-figures:
	$(GO) run ./internal/cmd/docfigures
	mkdir -p $(CURDIR)/test-output
	GOFLAGS="$$($(GO) env GOFLAGS) $(NOPGO)" $(GO) test -v -count=1 -timeout 15m -run '^(TestDocsPageFigures|TestBrowserStartup)$$' ./render/e2e \
		-test.outputdir=$(CURDIR)/test-output -update-figures

## docs-page: remake the README's lead picture (docs/page.png: seed 42, 10 servers, paused at cycle 777) with the browser test that takes it
docs-page:
	mkdir -p $(CURDIR)/test-output
	GOFLAGS="$$($(GO) env GOFLAGS) $(NOPGO)" $(GO) test -count=1 -timeout 15m -run '^TestBrowserPage$$' ./render/e2e -test.outputdir=$(CURDIR)/test-output
	cp $(CURDIR)/test-output/page-pause-at.png docs/page.png

## docs-outputs: remake the README's compare tables with the commands the README shows; TestREADMEOutputsAreMadeByMake checks them
docs-outputs: build
	$(BIN)/lbsim compare --seed 1 --servers 10 --min-servers 10 --max-servers 10 --wave=false --rate 0.2 \
		--initial-per-server 0 --cycles 100000 --variant central:queues=pooled \
		--variant split-random:queues=per-server,policy=random \
		--variant split-rr:queues=per-server,policy=round-robin \
		--variant split-lc:queues=per-server,policy=least-connections | scripts/readme-block.sh README.md compare-queues
	$(BIN)/lbsim compare --seed 1 --replications 10 --servers 10 --min-servers 10 --max-servers 10 \
		--initial-per-server 0 --block none --wave=false --rate 0.08 --service lognormal \
		--service-cv 3 --mean-service 100 --queues per-server --cycles 2000000 \
		--variant policy=round-robin --variant policy=p2c \
		--variant policy=least-connections --variant policy=least-work --no-progress | scripts/readme-block.sh README.md compare-heavy-tails
	$(BIN)/lbsim compare --seed 1 --servers 4 --min-servers 4 --max-servers 4 --initial-per-server 0 \
		--block none --wave=false --rate 0.06 --service geometric --mean-service 50 --cycles 200000 \
		--fault fail:2@1 --variant first-idle:policy=first-idle \
		--variant least-connections:queues=per-server,policy=least-connections \
		--variant round-robin:queues=per-server,policy=round-robin | scripts/readme-block.sh README.md compare-fast-failing
	$(BIN)/lbsim compare --servers 10 --min-servers 10 --max-servers 10 --service geometric --mean-service 100 \
		--rate 0.08 --wave=false --initial-per-server 0 --cycles 80000 --seed 1 --timeout 1000 --retries 3 \
		--set 20000:rate=0.15 --set 25000:rate=0.08 --variant "no budget:retry-budget=0" \
		--variant "budget 0.1:retry-budget=0.1" | scripts/readme-block.sh README.md compare-retry-budget

## docs-pictures: remake the README's timeline chart, sweep table and sweep chart with the commands the README shows
docs-pictures: build
	$(BIN)/lbsim plot run --servers 4 --cycles 6000 --rate 1.2 --wave-period 3000 --initial-per-server 0 --block none \
		--task-min 2 --task-max 18 --scale-up 4 --scale-down 1 --cooldown 20 --seed 7 --out docs/timeline.png
	rm -f $(BIN)/sweep.jsonl
	$(BIN)/lbsim sweep --queues per-server --servers 10 --min-servers 10 --max-servers 10 --initial-per-server 0 --wave=false \
		--block none --task-min 1 --task-max 19 --cycles 20000 --seed 1 --vary rate=0.3:0.9:0.1 \
		--vary policy=round-robin,p2c,least-connections --replications 20 --no-progress --out $(BIN)/sweep.jsonl
	$(BIN)/lbsim aggregate $(BIN)/sweep.jsonl --metric avg_wait,wait_p99 | scripts/readme-block.sh README.md sweep-table
	$(BIN)/lbsim plot sweep $(BIN)/sweep.jsonl --metric wait_p99 --x rate --out docs/sweep.png

## docs-size: remake the README's two lbsim size tables with the commands the README shows
docs-size: build
	$(BIN)/lbsim size --rate 2 --service geometric --mean-service 100 --wave=false --block none \
		--cycles 100000 --seed 1 --slo 'wait_p99<=200' --variant pooled:queues=pooled \
		--variant rr:queues=per-server,policy=round-robin --variant p2c:queues=per-server,policy=p2c \
		--variant lc:queues=per-server,policy=least-connections | scripts/readme-block.sh README.md size-geometric
	$(BIN)/lbsim size --rate 2 --service lognormal --service-cv 3 --mean-service 100 --wave=false \
		--block none --cycles 100000 --seed 1 --slo 'wait_p99<=200' --variant pooled:queues=pooled \
		--variant rr:queues=per-server,policy=round-robin --variant p2c:queues=per-server,policy=p2c \
		--variant lc:queues=per-server,policy=least-connections | scripts/readme-block.sh README.md size-lognormal

## docs-settings: rewrite docs/cli.md's settings table from the settings table (lbsim settings --markdown)
docs-settings:
	$(GO) test ./cmd/lbsim -run TestDocsSettingsTable -update-docs

## generate: regenerate committed generated code (msgp)
generate:
	$(GO) generate ./...

fmt:
	gofmt -l -w .

clean:
	rm -rf $(BIN) logs $(DIST) test-output
