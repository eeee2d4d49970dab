//go:build !js

package e2e

import (
	"bytes"
	"encoding/json"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/lbsim/lbsim/internal/wasmoverlay"
)

// moduleRoot returns the directory of go.mod.
func moduleRoot(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		t.Fatalf("go env GOMOD: %v", err)
	}
	return filepath.Dir(strings.TrimSpace(string(out)))
}

// goBuild runs go build in the module root with extra environment and
// the version stamped as make stamps it (versionX); page builds as make web
// does (-ldflags "-s -w" and internal/wasmoverlay's workspace and flags:
// -trimpath, the overlay, inlining off where it buys nothing).
func goBuild(t *testing.T, out, pkg string, page bool, env ...string) {
	t.Helper()
	args, ldflags := []string{"build", "-o", out}, versionX()
	env = append(os.Environ(), env...)
	if page {
		dir, err := os.MkdirTemp("", "lbsim-e2e-wasm-build-")
		if err != nil {
			t.Fatal(err)
		}
		defer os.RemoveAll(dir)
		b, err := wasmoverlay.Write(moduleRoot(t), dir)
		if err != nil {
			t.Fatalf("the page's build: %v", err)
		}
		args, ldflags, env = append(args, b.Flags()...), "-s -w "+ldflags, append(env, b.Env()...)
	}
	cmd := exec.Command("go", append(args, "-ldflags", ldflags, pkg)...)
	cmd.Dir = moduleRoot(t)
	cmd.Env = env
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, b)
	}
}

// versionX is the version the Makefile's builds stamp (its VERSION_X): the
// commit and whether the tree has changes, so the page, the window and the
// CLI these tests build say the same version, as make's do. "" outside git.
var versionX = sync.OnceValue(func() string {
	root, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return ""
	}
	git := func(args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Dir = filepath.Dir(strings.TrimSpace(string(root)))
		out, err := cmd.Output()
		if err != nil {
			return ""
		}
		return strings.TrimSpace(string(out))
	}
	rev := git("rev-parse", "HEAD")
	if rev == "" {
		return ""
	}
	x := "-X github.com/lbsim/lbsim/version.revision=" + rev
	if git("status", "--porcelain") != "" {
		x += " -X github.com/lbsim/lbsim/version.modified=true"
	}
	return x
})

var (
	commandMu  sync.Mutex
	commandDir string                // where builtCommand puts its binaries; TestMain removes it
	commands   = map[string]string{} // package → built binary
)

// builtCommand builds the native command pkg ("./cmd/lbsim") once for all
// the tests of the package and returns the binary's path.
func builtCommand(t *testing.T, pkg string) string {
	t.Helper()
	commandMu.Lock()
	defer commandMu.Unlock()
	if bin, ok := commands[pkg]; ok {
		return bin
	}
	if commandDir == "" {
		dir, err := os.MkdirTemp("", "lbsim-e2e-bin-")
		if err != nil {
			t.Fatal(err)
		}
		commandDir = dir
	}
	bin := filepath.Join(commandDir, filepath.Base(pkg))
	goBuild(t, bin, pkg, false)
	commands[pkg] = bin
	return bin
}

// outDir is where screenshots go: -test.outputdir when given, else a
// temporary directory.
func outDir(t *testing.T) string {
	if f := testingOutputDir(); f != "" {
		if err := os.MkdirAll(f, 0o755); err != nil {
			t.Fatalf("output directory: %v", err)
		}
		return f
	}
	return t.TempDir()
}

// blankness reports how many distinct colours the image has and which
// fraction of its pixels differ from the top-left one.
func blankness(t *testing.T, pngData []byte) (colours int, nonBackground float64) {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(pngData))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	b := img.Bounds()
	bg := img.At(b.Min.X, b.Min.Y)
	seen := map[[4]uint32]bool{}
	diff := 0
	for y := b.Min.Y; y < b.Max.Y; y += 2 {
		for x := b.Min.X; x < b.Max.X; x += 2 {
			c := img.At(x, y)
			r, g, bb, a := c.RGBA()
			seen[[4]uint32{r >> 8, g >> 8, bb >> 8, a >> 8}] = true
			if c != bg {
				diff++
			}
		}
	}
	total := (b.Dx() + 1) / 2 * ((b.Dy() + 1) / 2)
	return len(seen), float64(diff) / float64(total)
}

// cliJSON runs the CLI and decodes the JSON summary it prints.
func cliJSON(t *testing.T, cli string, args ...string) map[string]any {
	t.Helper()
	out, err := exec.Command(cli, args...).Output()
	if err != nil {
		t.Fatalf("lbsim %v: %v", args, err)
	}
	return decodeJSON(t, out)
}

// decodeJSON decodes a JSON object, failing the test if it is not one.
func decodeJSON(t *testing.T, data []byte) map[string]any {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal(data, &v); err != nil || v == nil {
		t.Fatalf("not a JSON object (%v): %s", err, data)
	}
	return v
}
