# lbsim: the web page, the desktop window and their tests (docs/render.md).
# Targets here are self-contained so they can be merged with other parts.

GO        ?= go
GOROOT    := $(shell $(GO) env GOROOT)
WASM_EXEC := $(GOROOT)/lib/wasm/wasm_exec.js
DIST      ?= dist
BIN       ?= bin
DEBIAN_PACKAGES := gcc libc6-dev libgl1-mesa-dev libx11-dev libxcursor-dev libxi-dev \
	libxinerama-dev libxrandr-dev libxxf86vm-dev xvfb xauth chromium

.PHONY: web serve desktop deps test vet test-unit test-wasm test-display test-e2e

# web: a self-contained dist/ for any static host.
web:
	mkdir -p $(DIST)
	GOOS=js GOARCH=wasm $(GO) build -trimpath -ldflags="-s -w" -o $(DIST)/lbsim.wasm ./wasm
	cp index.html $(DIST)/index.html
	cp $(WASM_EXEC) $(DIST)/wasm_exec.js
	gzip -9 -k -f $(DIST)/lbsim.wasm
	@ls -l $(DIST)/lbsim.wasm $(DIST)/lbsim.wasm.gz

# serve: build the page and serve it on http://127.0.0.1:8080.
serve: web
	$(GO) run ./cmd/lbsim-serve -dir $(DIST) -addr 127.0.0.1:8080

# desktop: build and open the native window (needs `make deps`).
desktop:
	mkdir -p $(BIN)
	$(GO) build -o $(BIN)/lbsim-desktop ./cmd/lbsim-desktop
	./$(BIN)/lbsim-desktop $(ARGS)

# deps: the Debian packages the desktop build and the tests need.
deps:
	@missing=$$(for p in $(DEBIAN_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "installing:" $$missing; \
		apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $$missing; \
	else echo "all Debian packages present"; fi

# test: everything. Packages that import ebiten need a display, so their
# tests carry the `display` build tag and run under xvfb-run; render/e2e
# builds the wasm and the desktop command and drives headless Chromium and
# an Xvfb window itself.
test: vet test-unit test-wasm test-display test-e2e

vet:
	$(GO) vet ./...
	GOOS=js GOARCH=wasm $(GO) vet ./...
	$(GO) vet -tags display ./render/...

# Plain tests of everything that needs no display (e2e runs separately).
test-unit:
	$(GO) test -short ./...

# The packages that do not import ebiten, under Node.
test-wasm:
	PATH="$$PATH:$(GOROOT)/lib/wasm" GOOS=js GOARCH=wasm $(GO) test -short \
		$$(GOOS=js GOARCH=wasm $(GO) list -f '{{.ImportPath}}{{range .Deps}}{{if eq . "github.com/hajimehoshi/ebiten/v2"}} EBITEN{{end}}{{end}}' ./... | grep -v EBITEN | grep -v '/e2e$$')

test-display:
	xvfb-run -a $(GO) test -tags display -bench . -benchtime 100x ./render

test-e2e:
	mkdir -p $(CURDIR)/test-output
	$(GO) test -v -count=1 -timeout 15m ./render/e2e -test.outputdir=$(CURDIR)/test-output
