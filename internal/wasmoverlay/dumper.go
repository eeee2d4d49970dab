package wasmoverlay

import (
	"fmt"
	"go/ast"
	"go/format"
	"go/token"
	"go/types"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// dumperFile is the file GenerateDumper rewrites.
const dumperFile = "imagedumper.go"

// leftOut is what the replaced functions return, and the declaration of it
// the replacement gains.
const leftOut = "\n// errLeftOut is what a screenshot or an image dump returns in lbsim's page.\n" +
	"var errLeftOut = errors.New(\"ebiten: screenshots and image dumps are left out of lbsim's page\")\n"

// GenerateDumper returns the replacement for ebiten's imagedumper.go (src,
// as File.Source returns it): the same file, its licence header kept, whose
// takeScreenshot and dumpInternalImages return errLeftOut, without the
// datetimeForFilename they alone call. ebiten calls them only when the
// EBITENGINE_SCREENSHOT_KEY or EBITENGINE_INTERNAL_IMAGES_KEY environment
// variable names a key, and the page's Go program has no environment.
func GenerateDumper(src []byte) ([]byte, error) {
	f, off, err := parseSource(dumperFile, src)
	if err != nil {
		return nil, err
	}
	var edits []edit
	imports := map[string]bool{}
	found := map[string]bool{}
	for _, decl := range f.Decls {
		switch d := decl.(type) {
		case *ast.GenDecl:
			if d.Tok == token.IMPORT {
				for _, s := range d.Specs {
					p, _ := strconv.Unquote(s.(*ast.ImportSpec).Path.Value)
					imports[p] = true
				}
				edits = append(edits, edit{off(d.Pos()), off(d.End()), dumperImports})
			}
		case *ast.FuncDecl:
			if d.Recv != nil {
				continue
			}
			switch d.Name.Name {
			case "datetimeForFilename":
				found[d.Name.Name] = true
				edits = append(edits, edit{off(d.Pos()), off(d.End()) + 1, ""})
			case "takeScreenshot", "dumpInternalImages":
				found[d.Name.Name] = true
				if d.Type.Results == nil || len(d.Type.Results.List) != 1 || fmt.Sprint(d.Type.Results.List[0].Type) != "error" {
					return nil, fmt.Errorf("%s: %s no longer returns an error alone", dumperFile, d.Name.Name)
				}
				edits = append(edits, edit{off(d.Body.Pos()), off(d.Body.End()), "{\n\treturn errLeftOut\n}"})
			}
		}
	}
	want := []string{"fmt", "github.com/hajimehoshi/ebiten/v2/internal/debug", "github.com/hajimehoshi/ebiten/v2/internal/ui",
		"os", "path/filepath", "runtime", "time"}
	if got := slices.Sorted(maps.Keys(imports)); !slices.Equal(got, want) {
		return nil, fmt.Errorf("%s imports %v, not %v", dumperFile, got, want)
	}
	if len(found) != 3 {
		return nil, fmt.Errorf("%s: not all of datetimeForFilename, takeScreenshot and dumpInternalImages found: %v", dumperFile, found)
	}
	header := off(f.Package)
	edits = append(edits, edit{header, header, notice(dumperFile,
		"takeScreenshot and dumpInternalImages return an error instead; ebiten calls them only when the "+
			"EBITENGINE_SCREENSHOT_KEY or EBITENGINE_INTERNAL_IMAGES_KEY environment variable names a key, "+
			"and the page's Go program has no environment")})
	out := append(applyEdits(src, edits), leftOut...)
	return format.Source(out)
}

// dumperImports are the imports the replacement of imagedumper.go keeps.
const dumperImports = `import (
	"errors"
	"fmt"
	"os"

	"github.com/hajimehoshi/ebiten/v2/internal/debug"
)`

// imageJSFile and imageFile are the files GenerateImageJS and
// GenerateImage rewrite.
const (
	imageJSFile = "internal/graphicscommand/image_js.go"
	imageFile   = "internal/graphicscommand/image.go"
)

// GenerateImageJS returns the replacement for ebiten's
// internal/graphicscommand/image_js.go (src, as File.Source returns it): the
// same file, its licence header kept, whose DumpImages returns an error
// instead of zipping the images, so that archive/zip, whose init registers
// a deflate writer and reader, is not linked. Its one caller is the
// dumpInternalImages GenerateDumper leaves out.
func GenerateImageJS(src []byte) ([]byte, error) {
	return leaveOut(src, leftOutFunc{
		file:    imageJSFile,
		imports: []string{"archive/zip", "bytes", "image", "syscall/js", "github.com/hajimehoshi/ebiten/v2/internal/graphicsdriver"},
		drop:    "archive/zip", add: "errors",
		name: "DumpImages", results: "[string error]", body: "return \"\", errLeftOut",
		tail: strings.Replace(leftOut, "a screenshot or an image dump", "an image dump", 1),
		what: "DumpImages returns an error instead, so that archive/zip and its deflate writer and reader are left out; " +
			"its one caller, ebiten's dumpInternalImages, returns an error in lbsim's page without calling it",
	})
}

// GenerateImage returns the replacement for ebiten's
// internal/graphicscommand/image.go (src): the same file, its licence header
// kept, whose (*Image).dumpTo returns an error instead of encoding a PNG, so
// that ebiten's PNG encoder, zlib and deflate (whose init builds tables at
// start-up) are not linked. Its callers are Dump and DumpImages, reached
// only from the screenshot and image dump GenerateDumper leaves out.
func GenerateImage(src []byte) ([]byte, error) {
	return leaveOut(src, leftOutFunc{
		file: imageFile,
		imports: []string{"fmt", "image", "io", "sort", "strconv", "strings",
			"github.com/hajimehoshi/ebiten/v2/internal/debug", "github.com/hajimehoshi/ebiten/v2/internal/graphics",
			"github.com/hajimehoshi/ebiten/v2/internal/graphicsdriver", "github.com/hajimehoshi/ebiten/v2/internal/png"},
		drop: "github.com/hajimehoshi/ebiten/v2/internal/png",
		recv: "*Image", name: "dumpTo", results: "[error]",
		body: "return fmt.Errorf(\"graphicscommand: image dumps are left out of lbsim's page\")",
		what: "(*Image).dumpTo returns an error instead of encoding a PNG, so that the PNG encoder, zlib and deflate are left out; " +
			"it is called only by the screenshot and image dump left out of lbsim's page",
	})
}

// leftOutFunc says how leaveOut changes a file: one function's body
// replaced and one import dropped (or replaced by another).
type leftOutFunc struct {
	file          string   // the file, relative to ebiten's directory
	imports       []string // all its imports, in order, as they must be
	drop, add     string   // the import dropped, and the one put in its place ("" for none)
	recv, name    string   // the function (recv "" for none)
	results, body string   // its results as fmt prints their types, and its new body
	tail, what    string   // text appended to the file, and the notice's what
}

// leaveOut returns src changed as c says, or an error when the file is not
// as expected.
func leaveOut(src []byte, c leftOutFunc) ([]byte, error) {
	f, off, err := parseSource(c.file, src)
	if err != nil {
		return nil, err
	}
	var edits []edit
	var imports []string
	for _, s := range f.Imports {
		p, _ := strconv.Unquote(s.Path.Value)
		imports = append(imports, p)
		if p != c.drop {
			continue
		}
		from, to := off(s.Pos()), off(s.End())
		if c.add != "" {
			edits = append(edits, edit{from, to, strconv.Quote(c.add)})
			continue
		}
		for from > 0 && src[from-1] != '\n' {
			from--
		}
		edits = append(edits, edit{from, to + 1, ""})
	}
	if !slices.Equal(imports, c.imports) {
		return nil, fmt.Errorf("%s imports %v, not %v", c.file, imports, c.imports)
	}
	found := 0
	for _, decl := range f.Decls {
		d, ok := decl.(*ast.FuncDecl)
		if !ok || d.Name.Name != c.name || (d.Recv == nil) != (c.recv == "") ||
			(d.Recv != nil && types.ExprString(d.Recv.List[0].Type) != c.recv) {
			continue
		}
		var results []string
		if d.Type.Results != nil {
			for _, r := range d.Type.Results.List {
				results = append(results, types.ExprString(r.Type))
			}
		}
		if fmt.Sprint(results) != c.results {
			return nil, fmt.Errorf("%s: %s returns %v, not %s", c.file, c.name, results, c.results)
		}
		found++
		edits = append(edits, edit{off(d.Body.Pos()), off(d.Body.End()), "{\n\t" + c.body + "\n}"})
	}
	if found != 1 {
		return nil, fmt.Errorf("%s: %d functions %s, not one", c.file, found, c.name)
	}
	header := off(f.Package)
	edits = append(edits, edit{header, header, notice(c.file, c.what)})
	return format.Source(append(applyEdits(src, edits), c.tail...))
}
