// Command fontstrip writes assets' fonts: the Go fonts as golang.org/x/image
// ships them, without the hinting programs and glyph names the renderer never
// reads (internal/fontstrip). go generate ./assets runs it in assets/.
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/image/font/gofont/gobold"
	"golang.org/x/image/font/gofont/goregular"

	"github.com/lbsim/lbsim/internal/fontstrip"
)

func main() {
	dir := "fonts"
	if len(os.Args) > 1 {
		dir = os.Args[1]
	}
	for name, ttf := range map[string][]byte{"Go-Regular.ttf": goregular.TTF, "Go-Bold.ttf": gobold.TTF} {
		out, err := fontstrip.Strip(ttf)
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, name), out, 0o644)
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "fontstrip: %s: %v\n", name, err)
			os.Exit(1)
		}
	}
}
