// Package wasmoverlay says how the page's WebAssembly module is built
// smaller than a plain `GOOS=js GOARCH=wasm go build` makes it, without
// changing what it does.
//
//   - Without text/template, which ebiten v2.8.8 uses at run time to write
//     its built-in shaders: a reachable text/template makes Go's linker keep
//     every exported method of every type that reaches an interface (it
//     cannot tell which method a template will call by name), 3 MB of the
//     module. The shaders come rendered in advance from ebiten's own
//     template instead (GenerateShaders).
//   - Without ebiten's screenshot and image dump, which it runs only when
//     the EBITENGINE_SCREENSHOT_KEY or EBITENGINE_INTERNAL_IMAGES_KEY
//     environment variable names a key: the page's Go program has no
//     environment, and the two bring a PNG encoder, a zip writer and time
//     formatting (GenerateDumper), nor the image dumps behind them, whose
//     archive/zip, PNG encoder and zlib bring a deflate reader and writer
//     (GenerateImageJS, GenerateImage).
//   - Without package regexp, which ebiten's shader compiler uses for three
//     fixed expressions and which brings the Unicode tables: each is a
//     matcher written out for its expression (patterns.go, copied into the
//     three files by GenerateWithoutRegexp) and checked against regexp.
//   - With inlining off in the packages that run at start-up or on a rare
//     action (NoInline): inlined code compresses worse, and there it buys
//     nothing a user sees.
//
// The files are replaced with `go build -overlay`, which maps each of
// ebiten's files to its Replacement, generated from ebiten's file by go
// generate and committed; ebiten is not vendored or changed on disk. The go
// command refuses to overlay a file in the module cache, so the build runs
// in a workspace whose replace directive reaches ebiten through a symbolic
// link (Write makes the files; Build says how to use them). Write first
// checks that ebiten is the version, and each file the one, the
// replacements were made from (SHA-256), so that a new ebiten fails the
// build loudly instead of running with stale replacements. The desktop
// window is built without any of this (a native binary's size matters less).
package wasmoverlay

//go:generate go run ../cmd/wasmoverlay -generate

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

const (
	// EbitenModule is the module whose files the overlay replaces.
	EbitenModule = "github.com/hajimehoshi/ebiten/v2"
	// EbitenVersion is the version of EbitenModule the replacements were
	// generated from.
	EbitenVersion = "v2.8.8"
	// ShaderPackage is the package of the shaders' file.
	ShaderPackage = EbitenModule + "/internal/builtinshader"
)

// File is one of ebiten's files the page's build replaces.
type File struct {
	// Name is the file, relative to EbitenModule's directory.
	Name string
	// SHA256 is its SHA-256 in EbitenVersion.
	SHA256 string
	// Replacement is the generated file, relative to the repository's
	// root. Its directory starts with "_" so that ./... patterns skip it:
	// it is compiled only as ebiten's, through the overlay.
	Replacement string
	// Generate makes the replacement from the file.
	Generate func(src []byte) ([]byte, error)
	// Changed are the file's top-level declarations the replacement leaves
	// out or changes (besides its imports); it keeps all the others as
	// they are.
	Changed []string
}

// Files are the files the page's build replaces.
var Files = []File{
	{
		Name:        "internal/builtinshader/shader.go",
		SHA256:      "932a4a04d35a2bafa2272c9089f963ba5f189d855931af8fc049ead7360f6ebe",
		Replacement: "internal/wasmoverlay/_ebiten/builtinshader/shader.go",
		Generate:    GenerateShaders,
		Changed:     []string{"tmpl", "ShaderSource"},
	},
	{
		Name:        "imagedumper.go",
		SHA256:      "62f50355cb0c4c85b23485d7b9862dc69cc2be1cd9ad70e2d064b6945d928c03",
		Replacement: "internal/wasmoverlay/_ebiten/imagedumper.go",
		Generate:    GenerateDumper,
		Changed:     []string{"datetimeForFilename", "takeScreenshot", "dumpInternalImages"},
	},
	{
		Name:        imageJSFile,
		SHA256:      "cc4b98f57f47ce6ae95cf42ee43337067834ce9f6810437b8a7af4ff69873359",
		Replacement: "internal/wasmoverlay/_ebiten/graphicscommand/image_js.go",
		Generate:    GenerateImageJS,
		Changed:     []string{"DumpImages"},
	},
	{
		Name:        imageFile,
		SHA256:      "0748383e1cf148edfd3395ebdbe559fd104884ca5ef6627d3826a58ee333be42",
		Replacement: "internal/wasmoverlay/_ebiten/graphicscommand/image.go",
		Generate:    GenerateImage,
		Changed:     []string{"*Image.dumpTo"},
	},
	{
		Name:        "internal/shader/expr.go",
		SHA256:      "62e8769226d1219c565fb133d9ddc18d788467f0cff93d7e68f886b7aefa4e60",
		Replacement: "internal/wasmoverlay/_ebiten/shader/expr.go",
		Generate:    GenerateWithoutRegexp("internal/shader/expr.go", map[string]string{`\A__t(\d+)\z`: "textureVariableRe"}),
		Changed:     []string{"textureVariableRe"},
	},
	{
		Name:        "internal/shader/shader.go",
		SHA256:      "bbbf10aa2a2836e1bf7bedf912092ef4de47155c4f947f94eeb0c2c2dd3268f2",
		Replacement: "internal/wasmoverlay/_ebiten/shader/shader.go",
		Generate: GenerateWithoutRegexp("internal/shader/shader.go",
			map[string]string{`^[ \t\r\n]*//kage:unit\s+([^ \t\r\n]+)[ \t\r\n]*$`: "ParseCompilerDirectives"}),
		Changed: []string{"ParseCompilerDirectives"},
	},
	{
		Name:        "internal/shaderir/glsl/glsl.go",
		SHA256:      "080d2bfc96deab5c528c32c580348b504020e9d17f3237221c86e58086597842",
		Replacement: "internal/wasmoverlay/_ebiten/glsl/glsl.go",
		Generate:    GenerateWithoutRegexp("internal/shaderir/glsl/glsl.go", map[string]string{`\n\n+`: "Compile"}),
		Changed:     []string{"Compile"},
	},
}

// NoInline are the packages (patterns) of the page compiled with inlining
// off: those that run at start-up (ebiten's shader compiler and what it
// uses, the lessons' and presets' tables, the query's parsing) or on a rare
// action (snapshots and their links, scenario files, the theory panel,
// JSON for the test hook), and the standard library they use that the
// frames do not. The model (sim and what it steps with), the scene's
// drawing, ebiten's drawing and the runtime keep it.
var NoInline = []string{
	"go/...", "math/big", "encoding/...", "net/...",
	"reflect", "fmt", "internal/fmtsort", "time", "unicode",
	"github.com/BurntSushi/toml/...", "github.com/tinylib/msgp/...",
	EbitenModule + "/internal/shader/...", EbitenModule + "/internal/shaderir/...",
	"github.com/lbsim/lbsim/sim/snapshot", "github.com/lbsim/lbsim/scenario",
	"github.com/lbsim/lbsim/render/preset", "github.com/lbsim/lbsim/render/lesson",
	"github.com/lbsim/lbsim/render/scene",
	"github.com/lbsim/lbsim/sim/mmc", "github.com/lbsim/lbsim/queueing", "github.com/lbsim/lbsim/suggest",
	"github.com/lbsim/lbsim/wasm", "github.com/lbsim/lbsim/version",
}

// EbitenDir returns the directory of EbitenModule as the go command in
// root resolves it, after checking that its version is EbitenVersion.
func EbitenDir(root string) (string, error) {
	cmd := exec.Command("go", "list", "-m", "-f", "{{.Version}} {{.Dir}}", EbitenModule)
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			err = fmt.Errorf("%v: %s", err, ee.Stderr)
		}
		return "", fmt.Errorf("go list -m %s: %w", EbitenModule, err)
	}
	version, dir, ok := strings.Cut(strings.TrimSpace(string(out)), " ")
	if !ok || dir == "" {
		return "", fmt.Errorf("go list -m %s: no directory in %q (run go mod download)", EbitenModule, out)
	}
	if version != EbitenVersion {
		return "", fmt.Errorf("%s is %s, but the page's shader overlay was made from %s: "+
			"check whether the new ebiten still renders its shaders with text/template "+
			"(if not, drop the overlay; if so, update EbitenVersion and ShaderSHA256 in "+
			"internal/wasmoverlay and run go generate ./internal/wasmoverlay)",
			EbitenModule, version, EbitenVersion)
	}
	return dir, nil
}

// Source reads the file from ebiten's directory dir (EbitenDir's) and
// checks that it is the one its replacement was generated from.
func (f File) Source(dir string) ([]byte, error) {
	name := filepath.Join(dir, filepath.FromSlash(f.Name))
	src, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(src)
	if got := hex.EncodeToString(sum[:]); got != f.SHA256 {
		return nil, fmt.Errorf("%s has SHA-256 %s, not the %s the page's build replaces with %s: "+
			"compare the two, then update its SHA256 in internal/wasmoverlay "+
			"and run go generate ./internal/wasmoverlay", name, got, f.SHA256, f.Replacement)
	}
	return src, nil
}

// The files Write puts in its directory.
const (
	// WorkFile is the workspace file the build runs in (GOWORK): the
	// repository's module, with ebiten replaced by EbitenLink.
	WorkFile = "go.work"
	// EbitenLink is a symbolic link to ebiten's directory in the module
	// cache. The go command refuses to overlay files in the module cache;
	// through the link the same files have a path outside it.
	EbitenLink = "ebiten"
	// OverlayFile is the overlay (go build -overlay) that replaces each of
	// Files under EbitenLink with its Replacement.
	OverlayFile = "overlay.json"
	// FlagsFile holds Build.Flags, one a line, for make.
	FlagsFile = "flags"
)

// Overlay is the JSON form `go build -overlay` reads.
type Overlay struct {
	// Replace maps a file the build would read to the file it reads instead.
	Replace map[string]string
}

// Build is a directory Write filled: what a go command needs to build the
// page as make web does.
type Build struct {
	Dir string // absolute
}

// Env returns the environment the go command needs besides its own: GOWORK.
func (b Build) Env() []string {
	return []string{"GOWORK=" + filepath.Join(b.Dir, WorkFile)}
}

// Flags returns the build flags the go command needs: -trimpath (as every
// WebAssembly build of the project, so that they share compiled packages),
// -overlay and a -gcflags=PATTERN=-l for each of NoInline.
func (b Build) Flags() []string {
	flags := []string{"-trimpath", "-overlay=" + filepath.Join(b.Dir, OverlayFile)}
	for _, p := range NoInline {
		flags = append(flags, "-gcflags="+p+"=-l")
	}
	return flags
}

// Write fills the directory dir (made if need be) for building the page of
// the repository at root (Build), after checking that ebiten and each of
// Files are those the replacements were generated from.
func Write(root, dir string) (Build, error) {
	ebiten, err := EbitenDir(root)
	if err != nil {
		return Build{}, err
	}
	if root, err = filepath.Abs(root); err != nil {
		return Build{}, err
	}
	if dir, err = filepath.Abs(dir); err != nil {
		return Build{}, err
	}
	link := filepath.Join(dir, EbitenLink)
	o := Overlay{Replace: map[string]string{}}
	for _, f := range Files {
		if _, err := f.Source(ebiten); err != nil {
			return Build{}, err
		}
		replacement := filepath.Join(root, filepath.FromSlash(f.Replacement))
		if _, err := os.Stat(replacement); err != nil {
			return Build{}, fmt.Errorf("the page's build: %w (run go generate ./internal/wasmoverlay)", err)
		}
		o.Replace[filepath.Join(link, filepath.FromSlash(f.Name))] = replacement
	}
	goLine, err := goDirective(filepath.Join(root, "go.mod"))
	if err != nil {
		return Build{}, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return Build{}, err
	}
	if err := os.Remove(link); err != nil && !os.IsNotExist(err) {
		return Build{}, err
	}
	if err := os.Symlink(ebiten, link); err != nil {
		return Build{}, err
	}
	work := fmt.Sprintf("// Written by internal/wasmoverlay for the page's build; not edited by hand.\n\n"+
		"%s\n\nuse %s\n\nreplace %s %s => ./%s\n", goLine, root, EbitenModule, EbitenVersion, EbitenLink)
	if err := os.WriteFile(filepath.Join(dir, WorkFile), []byte(work), 0o644); err != nil {
		return Build{}, err
	}
	data, err := json.MarshalIndent(o, "", "\t")
	if err != nil {
		return Build{}, err
	}
	if err := os.WriteFile(filepath.Join(dir, OverlayFile), append(data, '\n'), 0o644); err != nil {
		return Build{}, err
	}
	b := Build{Dir: dir}
	flags := strings.Join(b.Flags(), "\n") + "\n"
	if err := os.WriteFile(filepath.Join(dir, FlagsFile), []byte(flags), 0o644); err != nil {
		return Build{}, err
	}
	return b, nil
}

// goDirective returns the go line of the go.mod file name ("go 1.26.8"),
// which the workspace file repeats.
func goDirective(name string) (string, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return "", err
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		if f := strings.Fields(line); len(f) == 2 && f[0] == "go" {
			return line, nil
		}
	}
	return "", fmt.Errorf("%s: no go line", name)
}

// ModuleRoot returns the directory of go env GOMOD: the repository's root
// when run inside it.
func ModuleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == os.DevNull {
		return "", fmt.Errorf("not inside a Go module (go env GOMOD is %q)", mod)
	}
	return filepath.Dir(mod), nil
}
