// Command genhelp writes help_text.h, the help lbsim-desktop prints before
// the window library starts (go generate ./cmd/lbsim-desktop).
package main

import (
	"fmt"
	"os"

	"github.com/lbsim/lbsim/cmd/lbsim-desktop/internal/cli"
)

func main() {
	if err := os.WriteFile("help_text.h", []byte(cli.CHeader()), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "genhelp:", err)
		os.Exit(1)
	}
}
