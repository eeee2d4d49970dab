package wasmoverlay

import (
	_ "embed"
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

// patternsSource is patterns.go, whose matchers GenerateWithoutRegexp copies.
//
//go:embed patterns.go
var patternsSource []byte

// patternTypes are the matchers of patterns.go by the regular expression
// each stands in for.
var patternTypes = map[string]string{
	`\A__t(\d+)\z`: "textureVariablePattern",
	`^[ \t\r\n]*//kage:unit\s+([^ \t\r\n]+)[ \t\r\n]*$`: "kageUnitPattern",
	`\n\n+`: "newlineRunsPattern",
}

// GenerateWithoutRegexp returns a Generate function for ebiten's file name
// (relative to ebiten's directory) that compiles the regular expressions
// wants (each one in the top-level declaration named with it): the same
// file, its licence header kept, that imports no regexp, each
// regexp.MustCompile(EXPR) replaced by the matcher of patterns.go standing
// in for EXPR, whose declaration it gains. Any other use of regexp, or a
// changed expression, is refused.
func GenerateWithoutRegexp(name string, wants map[string]string) func(src []byte) ([]byte, error) {
	return func(src []byte) ([]byte, error) {
		f, off, err := parseSource(name, src)
		if err != nil {
			return nil, err
		}
		var edits []edit
		for _, s := range f.Imports {
			if s.Path.Value == `"regexp"` && s.Name == nil {
				from, to := off(s.Pos()), off(s.End())
				for from > 0 && src[from-1] != '\n' {
					from--
				}
				edits = append(edits, edit{from, to + 1, ""})
			}
		}
		if len(edits) != 1 {
			return nil, fmt.Errorf("%s: no longer imports regexp once", name)
		}
		found := map[string]string{}
		var bad []string
		used := map[string]bool{}
		for _, decl := range f.Decls {
			ast.Inspect(decl, func(n ast.Node) bool {
				sel, ok := n.(*ast.SelectorExpr)
				if !ok || fmt.Sprint(sel.X) != "regexp" {
					if call, ok := n.(*ast.CallExpr); ok {
						if sel, ok := call.Fun.(*ast.SelectorExpr); ok && fmt.Sprint(sel.X) == "regexp" && sel.Sel.Name == "MustCompile" && len(call.Args) == 1 {
							if lit, ok := call.Args[0].(*ast.BasicLit); ok && lit.Kind == token.STRING {
								expr, _ := strconv.Unquote(lit.Value)
								decl := declName(decl)
								if typ, ok := patternTypes[expr]; ok && wants[expr] == decl {
									found[expr] = decl
									used[typ] = true
									edits = append(edits, edit{off(call.Pos()), off(call.End()), typ + "{}"})
									return false
								}
							}
						}
					}
					return true
				}
				bad = append(bad, string(src[off(sel.Pos()):off(sel.End())]))
				return false
			})
		}
		if len(bad) > 0 || !maps.Equal(found, wants) {
			return nil, fmt.Errorf("%s: uses regexp as %v and compiles %v, not only %v: the matchers in internal/wasmoverlay/patterns.go need a look",
				name, bad, found, wants)
		}
		decls, err := patternDecls(slices.Sorted(maps.Keys(used)))
		if err != nil {
			return nil, err
		}
		header := off(f.Package)
		edits = append(edits, edit{header, header, notice(name,
			"it imports no regexp; each regular expression it compiled is a matcher that gives what the expression gives, "+
				"written out for that expression (its declaration is at the end)")})
		return format.Source(append(applyEdits(src, edits), decls...))
	}
}

// declName is a top-level declaration's name as TestReplacementsAreCurrent
// keys it (functions without their receiver).
func declName(d ast.Decl) string {
	switch d := d.(type) {
	case *ast.FuncDecl:
		return d.Name.Name
	case *ast.GenDecl:
		switch s := d.Specs[0].(type) {
		case *ast.ValueSpec:
			return s.Names[0].Name
		case *ast.TypeSpec:
			return s.Name.Name
		}
	}
	return ""
}

// patternDecls returns the declarations in patterns.go of the types named
// and their methods, with their doc comments.
func patternDecls(types []string) ([]byte, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "patterns.go", patternsSource, parser.ParseComments)
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	b.WriteString("\n// The matchers below are lbsim's (internal/wasmoverlay/patterns.go).\n")
	n := 0
	for _, d := range f.Decls {
		var typ string
		switch d := d.(type) {
		case *ast.GenDecl:
			if d.Tok == token.TYPE {
				typ = d.Specs[0].(*ast.TypeSpec).Name.Name
			}
		case *ast.FuncDecl:
			if d.Recv != nil {
				typ = fmt.Sprint(d.Recv.List[0].Type)
			}
		}
		if !slices.Contains(types, typ) {
			continue
		}
		from := d.Pos()
		if g, ok := d.(*ast.GenDecl); ok && g.Doc != nil {
			from = g.Doc.Pos()
		}
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Doc != nil {
			from = fd.Doc.Pos()
		}
		b.WriteString("\n")
		b.Write(patternsSource[fset.Position(from).Offset:fset.Position(d.End()).Offset])
		b.WriteString("\n")
		n++
	}
	if n < 2*len(types) {
		return nil, fmt.Errorf("patterns.go: only %d declarations of %v", n, types)
	}
	return []byte(b.String()), nil
}
