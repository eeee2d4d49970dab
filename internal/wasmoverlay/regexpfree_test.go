package wasmoverlay

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// compileTest is a test added to ebiten's internal/graphics (through an
// overlay) that reads Kage sources (JSON, LBSIM_SOURCES) and writes, for
// each, what ebiten's shader path makes of it: the compiler directives, the
// program as the page compiles it (CompileShader) and as ebiten's own tests
// compile it (Vertex, Fragment), each in both GLSL versions, or the error.
const compileTest = `package graphics

import (
	"encoding/json"
	"fmt"
	"os"
	"testing"

	"github.com/hajimehoshi/ebiten/v2/internal/shader"
	"github.com/hajimehoshi/ebiten/v2/internal/shaderir"
	"github.com/hajimehoshi/ebiten/v2/internal/shaderir/glsl"
)

func TestLbsimCompileDump(t *testing.T) {
	data, err := os.ReadFile(os.Getenv("LBSIM_SOURCES"))
	if err != nil {
		t.Fatal(err)
	}
	var srcs []string
	if err := json.Unmarshal(data, &srcs); err != nil {
		t.Fatal(err)
	}
	show := func(p *shaderir.Program, err error) string {
		if err != nil {
			return "error: " + err.Error()
		}
		vs, fs := glsl.Compile(p, glsl.GLSLVersionDefault)
		vs3, fs3 := glsl.Compile(p, glsl.GLSLVersionES300)
		return fmt.Sprintf("unit %d textures %d\n%s\n%s\n%s\n%s", p.Unit, p.TextureCount, vs, fs, vs3, fs3)
	}
	var out []string
	for _, src := range srcs {
		unit, err := shader.ParseCompilerDirectives([]byte(src))
		out = append(out, fmt.Sprintf("directives: %d %v", unit, err))
		out = append(out, show(CompileShader([]byte(src))))
		out = append(out, show(shader.Compile([]byte(src), "Vertex", "Fragment", 0)))
	}
	if data, err = json.Marshal(out); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(os.Getenv("LBSIM_DUMP"), data, 0o644); err != nil {
		t.Fatal(err)
	}
}
`

// ebitenOverlay returns the page's overlay in the build b, with ebiten's
// files as they are (replaced false) or replaced, plus the extra files.
func ebitenOverlay(t *testing.T, b Build, replaced bool, extra map[string]string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(b.Dir, OverlayFile))
	if err != nil {
		t.Fatal(err)
	}
	var o Overlay
	if err := json.Unmarshal(data, &o); err != nil {
		t.Fatal(err)
	}
	if len(o.Replace) != len(Files) {
		t.Fatalf("the overlay replaces %d files, want %d: %v", len(o.Replace), len(Files), o.Replace)
	}
	if !replaced {
		clear(o.Replace)
	}
	dir := t.TempDir()
	for name, text := range extra {
		file := filepath.Join(dir, filepath.Base(name))
		if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		o.Replace[filepath.Join(b.Dir, EbitenLink, filepath.FromSlash(name))] = file
	}
	overlay := filepath.Join(dir, "overlay.json")
	if data, err = json.Marshal(o); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(overlay, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return overlay
}

// kageSources returns the sources TestReplacementCompilesShadersAlike
// compiles: the page's (ebiten's built-in shaders, all), ebiten's shader
// compiler's test inputs and example shaders, and a built-in shader after
// each of the matchers' edge cases as a first line.
func kageSources(t *testing.T, b Build) []string {
	t.Helper()
	srcs := shaderDump(t, b, false)
	builtin := srcs[0]
	ebiten := filepath.Join(b.Dir, EbitenLink)
	for _, glob := range []string{"internal/shader/testdata/*.go", "examples/shader/*.go"} {
		names, err := filepath.Glob(filepath.Join(ebiten, filepath.FromSlash(glob)))
		if err != nil || len(names) < 5 {
			t.Fatalf("%s: %d files, %v", glob, len(names), err)
		}
		for _, name := range names {
			src, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			srcs = append(srcs, string(src))
		}
	}
	for _, s := range patternInputs {
		srcs = append(srcs, s+"\n"+builtin, builtin+"\n"+s+"\n")
	}
	return srcs
}

// compileDump runs compileTest on srcs in ebiten's internal/graphics, with
// ebiten's files as they are or replaced, and returns what it wrote.
func compileDump(t *testing.T, b Build, replaced bool, srcs []string) []string {
	t.Helper()
	dir := t.TempDir()
	in, out := filepath.Join(dir, "sources.json"), filepath.Join(dir, "dump.json")
	data, err := json.Marshal(srcs)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(in, data, 0o644); err != nil {
		t.Fatal(err)
	}
	overlay := ebitenOverlay(t, b, replaced, map[string]string{"internal/graphics/lbsim_compile_test.go": compileTest})
	cmd := exec.Command("go", "test", "-count=1", "-overlay="+overlay, "-run", "^TestLbsimCompileDump$", EbitenModule+"/internal/graphics")
	cmd.Dir = root(t)
	cmd.Env = append(append(os.Environ(), b.Env()...), "LBSIM_SOURCES="+in, "LBSIM_DUMP="+out)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go test internal/graphics (replaced: %v): %v\n%s", replaced, err, msg)
	}
	if data, err = os.ReadFile(out); err != nil {
		t.Fatal(err)
	}
	var dump []string
	if err := json.Unmarshal(data, &dump); err != nil {
		t.Fatal(err)
	}
	return dump
}

// TestReplacementCompilesShadersAlike: with the files that no longer use
// regexp, ebiten's shader path gives exactly what it gives with its own
// files, for every shader the page uses, ebiten's own test inputs and
// examples, and the matchers' edge cases as directive lines: the directives
// (or their error), and the GLSL of the program compiled as the page
// compiles it and as ebiten's tests do (or the error).
func TestReplacementCompilesShadersAlike(t *testing.T) {
	b, err := Write(root(t), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	srcs := kageSources(t, b)
	plain, replaced := compileDump(t, b, false, srcs), compileDump(t, b, true, srcs)
	if len(plain) != 3*len(srcs) || len(replaced) != len(plain) {
		t.Fatalf("%d sources: %d results plain, %d replaced", len(srcs), len(plain), len(replaced))
	}
	var pixels, compiled, errs int
	for i, s := range plain {
		pixels += strings.Count(s, "directives: 1 <nil>")
		if strings.HasPrefix(s, "unit ") && strings.Contains(s, "\n\n") {
			compiled++
		}
		if strings.HasPrefix(s, "error: ") || strings.HasPrefix(s, "directives: 0 shader:") {
			errs++
		}
		if replaced[i] != s {
			t.Errorf("source %d, result %d: replaced\n%s\nebiten's\n%s\nsource:\n%s", i/3, i%3, replaced[i], s, srcs[i/3])
		}
	}
	if pixels < 30 || compiled < 60 || errs < 20 {
		t.Errorf("only %d sources in pixels, %d compiled, %d errors: the comparison covers too little", pixels, compiled, errs)
	}
}

// TestEbitensShaderTestsPassReplaced: ebiten's own tests of its shader
// compiler (programs compiled to GLSL and compared with the expected
// files) pass with the replacements.
func TestEbitensShaderTestsPassReplaced(t *testing.T) {
	b, err := Write(root(t), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	overlay := ebitenOverlay(t, b, true, nil)
	pkgs := []string{EbitenModule + "/internal/shader", EbitenModule + "/internal/graphics"}
	cmd := exec.Command("go", append([]string{"test", "-count=1", "-overlay=" + overlay}, pkgs...)...)
	cmd.Dir = root(t)
	cmd.Env = append(os.Environ(), b.Env()...)
	msg, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go test %v: %v\n%s", pkgs, err, msg)
	}
	for _, p := range pkgs {
		if !slices.ContainsFunc(strings.Split(string(msg), "\n"), func(l string) bool { return strings.HasPrefix(l, "ok  \t"+p+"\t") }) {
			t.Errorf("go test %s ran no tests:\n%s", p, msg)
		}
	}
}
