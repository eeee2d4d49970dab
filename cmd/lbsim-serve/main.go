// Command lbsim-serve serves a directory (dist/ by default) over HTTP on
// 127.0.0.1:8080 for the lbsim web page, printing the address. It sends
// the precompressed copies `make web` writes (lbsim.wasm.br, .gz) to
// browsers that accept them, and disables caching so a rebuilt page is
// always fresh (see internal/pageserve). A directory that is missing or
// holds no page is refused (exit 2) with "run make web first".
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"

	"github.com/lbsim/lbsim/internal/pageserve"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr, serve))
}

// serve serves the page from ln until it fails.
func serve(ln net.Listener, dir string) error { return http.Serve(ln, pageserve.Handler(dir)) }

// run parses the flags, checks the directory, listens and serves; it
// returns the exit code: 2 for bad usage or a directory without a page, 1
// when listening or serving fails.
func run(args []string, stdout, stderr io.Writer, serve func(net.Listener, string) error) int {
	fs := flag.NewFlagSet("lbsim-serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("dir", "dist", "directory to serve (make web writes dist/)")
	addr := fs.String("addr", "127.0.0.1:8080", "address to listen on")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "Usage: lbsim-serve [--dir DIR] [--addr HOST:PORT]\n\nServes the page make web built.\n\nFlags:")
		fs.VisitAll(func(f *flag.Flag) {
			fmt.Fprintf(fs.Output(), "  --%s\n    \t%s (default %s)\n", f.Name, f.Usage, f.DefValue)
		})
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "lbsim-serve: unexpected argument %q: give the directory with --dir\n", fs.Arg(0))
		return 2
	}
	if err := pageserve.CheckDir(*dir); err != nil {
		fmt.Fprintln(stderr, "lbsim-serve:", err)
		return 2
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintln(stderr, "lbsim-serve:", err)
		return 1
	}
	fmt.Fprintf(stdout, "lbsim: serving %s on http://%s/ (Ctrl-C stops)\n", *dir, ln.Addr())
	err = serve(ln, *dir)
	fmt.Fprintln(stderr, "lbsim-serve:", err)
	return 1
}
