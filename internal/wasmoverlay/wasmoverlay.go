// Package wasmoverlay lets the page's WebAssembly module be built without
// text/template, which ebiten v2.8.8 uses at run time to write its built-in
// shaders. A reachable text/template makes Go's linker keep every exported
// method of every type that reaches an interface (it cannot tell which
// method a template will call by name), about 4 MB of the module.
//
// The page is built with `go build -overlay`, which maps ebiten's
// internal/builtinshader/shader.go to Replacement: the same file with the
// shaders rendered in advance from ebiten's own template (Generate, run by
// go generate). ebiten is not vendored or changed on disk. The go command
// refuses to overlay a file in the module cache, so the build runs in a
// workspace whose replace directive reaches ebiten through a symbolic link
// (Write makes the three files; Build says how to use them). Write first
// checks that ebiten's file is the one the replacement was made from (the
// module's version and the file's SHA-256), so that a new ebiten fails the
// build loudly instead of running with stale shaders. The desktop window is
// built without it (a native binary's size matters less).
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
	// EbitenModule is the module whose file the overlay replaces.
	EbitenModule = "github.com/hajimehoshi/ebiten/v2"
	// EbitenVersion is the version of EbitenModule the replacement was
	// generated from.
	EbitenVersion = "v2.8.8"
	// ShaderPackage is the package that holds the replaced file.
	ShaderPackage = EbitenModule + "/internal/builtinshader"
	// ShaderFile is the replaced file, relative to EbitenModule's directory.
	ShaderFile = "internal/builtinshader/shader.go"
	// ShaderSHA256 is the SHA-256 of ShaderFile in EbitenVersion.
	ShaderSHA256 = "932a4a04d35a2bafa2272c9089f963ba5f189d855931af8fc049ead7360f6ebe"
	// Replacement is the generated file, relative to the repository's root.
	// Its directory starts with "_" so that ./... patterns skip it: it is
	// compiled only as ebiten's package, through the overlay.
	Replacement = "internal/wasmoverlay/_ebiten/builtinshader/shader.go"
)

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

// Source reads ebiten's ShaderFile from dir (EbitenDir's) and checks that
// it is the file the replacement was generated from.
func Source(dir string) ([]byte, error) {
	name := filepath.Join(dir, filepath.FromSlash(ShaderFile))
	src, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(src)
	if got := hex.EncodeToString(sum[:]); got != ShaderSHA256 {
		return nil, fmt.Errorf("%s has SHA-256 %s, not the %s the page's shader overlay was made from: "+
			"compare it with the replacement (%s), then update ShaderSHA256 in internal/wasmoverlay "+
			"and run go generate ./internal/wasmoverlay", name, got, ShaderSHA256, Replacement)
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
	// OverlayFile is the overlay (go build -overlay) that replaces
	// EbitenLink's ShaderFile with Replacement.
	OverlayFile = "overlay.json"
)

// Overlay is the JSON form `go build -overlay` reads.
type Overlay struct {
	// Replace maps a file the build would read to the file it reads instead.
	Replace map[string]string
}

// Build is a directory Write filled: what a go command needs to build the
// page without text/template.
type Build struct {
	Dir string // absolute
}

// Env returns the environment the go command needs besides its own: GOWORK.
func (b Build) Env() []string {
	return []string{"GOWORK=" + filepath.Join(b.Dir, WorkFile)}
}

// Flags returns the build flags the go command needs: -overlay.
func (b Build) Flags() []string {
	return []string{"-overlay=" + filepath.Join(b.Dir, OverlayFile)}
}

// Write fills the directory dir (made if need be) for building the
// repository at root's page without text/template (Build), after checking
// that ebiten and its ShaderFile are those Replacement was generated from.
func Write(root, dir string) (Build, error) {
	ebiten, err := EbitenDir(root)
	if err != nil {
		return Build{}, err
	}
	if _, err := Source(ebiten); err != nil {
		return Build{}, err
	}
	if root, err = filepath.Abs(root); err != nil {
		return Build{}, err
	}
	if dir, err = filepath.Abs(dir); err != nil {
		return Build{}, err
	}
	replacement := filepath.Join(root, filepath.FromSlash(Replacement))
	if _, err := os.Stat(replacement); err != nil {
		return Build{}, fmt.Errorf("the shader overlay's replacement: %w (run go generate ./internal/wasmoverlay)", err)
	}
	goLine, err := goDirective(filepath.Join(root, "go.mod"))
	if err != nil {
		return Build{}, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return Build{}, err
	}
	link := filepath.Join(dir, EbitenLink)
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
	o := Overlay{Replace: map[string]string{filepath.Join(link, filepath.FromSlash(ShaderFile)): replacement}}
	b, err := json.MarshalIndent(o, "", "\t")
	if err != nil {
		return Build{}, err
	}
	if err := os.WriteFile(filepath.Join(dir, OverlayFile), append(b, '\n'), 0o644); err != nil {
		return Build{}, err
	}
	return Build{Dir: dir}, nil
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
