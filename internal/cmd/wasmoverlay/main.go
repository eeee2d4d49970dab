// Command wasmoverlay writes what the page's WebAssembly build needs to
// leave out text/template (internal/wasmoverlay). Run from the
// repository's root:
//
//	go run ./internal/cmd/wasmoverlay -generate  # the replacement for ebiten's shader.go (go generate)
//	go run ./internal/cmd/wasmoverlay -o DIR     # DIR/go.work, DIR/overlay.json and DIR/ebiten for the build:
//	GOWORK=$PWD/DIR/go.work GOOS=js GOARCH=wasm go build -overlay=DIR/overlay.json ./wasm
//
// Both first check that ebiten is the version, and its shader.go the file,
// the replacement is made from, and fail naming what changed otherwise.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/lbsim/lbsim/internal/wasmoverlay"
)

func main() {
	generate := flag.Bool("generate", false, "write the replacement for ebiten's shader.go ("+wasmoverlay.Replacement+")")
	out := flag.String("o", "", "write the workspace, overlay and link the page's build uses into this directory")
	root := flag.String("root", "", "the repository's root (default: the directory of go env GOMOD)")
	flag.Parse()
	if *generate == (*out != "") || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: wasmoverlay -generate | -o DIR [-root DIR]")
		os.Exit(2)
	}
	if err := run(*root, *generate, *out); err != nil {
		fmt.Fprintln(os.Stderr, "wasmoverlay:", err)
		os.Exit(1)
	}
}

func run(root string, generate bool, out string) error {
	if root == "" {
		r, err := wasmoverlay.ModuleRoot()
		if err != nil {
			return err
		}
		root = r
	}
	if !generate {
		_, err := wasmoverlay.Write(root, out)
		return err
	}
	dir, err := wasmoverlay.EbitenDir(root)
	if err != nil {
		return err
	}
	src, err := wasmoverlay.Source(dir)
	if err != nil {
		return err
	}
	gen, err := wasmoverlay.Generate(src)
	if err != nil {
		return err
	}
	name := filepath.Join(root, filepath.FromSlash(wasmoverlay.Replacement))
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return err
	}
	return os.WriteFile(name, gen, 0o644)
}
