// Command wasmoverlay writes what the page's WebAssembly build needs to
// leave out text/template (internal/wasmoverlay). Run from the
// repository's root:
//
//	go run ./internal/cmd/wasmoverlay -generate  # the replacements for ebiten's files (go generate)
//	go run ./internal/cmd/wasmoverlay -o DIR     # DIR/go.work, overlay.json, flags and ebiten for the build:
//	GOWORK=$PWD/DIR/go.work GOOS=js GOARCH=wasm go build $(cat DIR/flags) ./wasm
//
// Both first check that ebiten is the version, and its files the ones, the
// replacements are made from, and fail naming what changed otherwise.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/lbsim/lbsim/internal/wasmoverlay"
)

func main() {
	generate := flag.Bool("generate", false, "write the replacements for ebiten's files (under internal/wasmoverlay/_ebiten)")
	out := flag.String("o", "", "write the workspace, overlay, flags and link the page's build uses into this directory")
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
	for _, f := range wasmoverlay.Files {
		src, err := f.Source(dir)
		if err != nil {
			return err
		}
		gen, err := f.Generate(src)
		if err != nil {
			return err
		}
		name := filepath.Join(root, filepath.FromSlash(f.Replacement))
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(name, gen, 0o644); err != nil {
			return err
		}
	}
	return nil
}
