package wasmoverlay

import (
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
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
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, dumperFile, src, parser.ParseComments)
	if err != nil {
		return nil, err
	}
	off := func(p token.Pos) int { return fset.Position(p).Offset }
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

// imageJSFile is the file GenerateImageJS rewrites.
const imageJSFile = "internal/graphicscommand/image_js.go"

// GenerateImageJS returns the replacement for ebiten's
// internal/graphicscommand/image_js.go (src, as File.Source returns it): the
// same file, its licence header kept, whose DumpImages returns an error
// instead of zipping the images, so that archive/zip, whose init registers
// a deflate writer and reader, is not linked. Its one caller is the
// dumpInternalImages GenerateDumper leaves out.
func GenerateImageJS(src []byte) ([]byte, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, imageJSFile, src, parser.ParseComments)
	if err != nil {
		return nil, err
	}
	off := func(p token.Pos) int { return fset.Position(p).Offset }
	var edits []edit
	var imports []string
	for _, s := range f.Imports {
		p, _ := strconv.Unquote(s.Path.Value)
		imports = append(imports, p)
		if p == "archive/zip" {
			edits = append(edits, edit{off(s.Pos()), off(s.End()), `"errors"`})
		}
	}
	want := []string{"archive/zip", "bytes", "image", "syscall/js", "github.com/hajimehoshi/ebiten/v2/internal/graphicsdriver"}
	if !slices.Equal(imports, want) {
		return nil, fmt.Errorf("%s imports %v, not %v", imageJSFile, imports, want)
	}
	found := false
	for _, decl := range f.Decls {
		d, ok := decl.(*ast.FuncDecl)
		if !ok || d.Recv != nil || d.Name.Name != "DumpImages" {
			continue
		}
		if r := d.Type.Results; r == nil || len(r.List) != 2 || fmt.Sprint(r.List[0].Type) != "string" || fmt.Sprint(r.List[1].Type) != "error" {
			return nil, fmt.Errorf("%s: DumpImages no longer returns a string and an error", imageJSFile)
		}
		found = true
		edits = append(edits, edit{off(d.Body.Pos()), off(d.Body.End()), "{\n\treturn \"\", errLeftOut\n}"})
	}
	if !found {
		return nil, fmt.Errorf("%s: no DumpImages", imageJSFile)
	}
	header := off(f.Package)
	edits = append(edits, edit{header, header, notice(imageJSFile,
		"DumpImages returns an error instead, so that archive/zip and its deflate writer and reader are left out; "+
			"its one caller, ebiten's dumpInternalImages, returns an error in lbsim's page without calling it")})
	out := append(applyEdits(src, edits), strings.Replace(leftOut, "a screenshot or an image dump", "an image dump", 1)...)
	return format.Source(out)
}
