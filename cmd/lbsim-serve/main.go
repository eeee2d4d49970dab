// Command lbsim-serve serves a directory (dist/ by default) over HTTP on
// 127.0.0.1:8080 (--addr; make serve ADDR=…) for the lbsim web page,
// printing the address; an address in use is refused (exit 1) saying so.
// It sends the precompressed copies `make web` writes (lbsim.wasm.br, .gz) to
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
	"syscall"

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
	if *addr == "" {
		// net.Listen would take every interface and a random port.
		fmt.Fprintln(stderr, "lbsim-serve: the address is empty: give --addr HOST:PORT (make serve ADDR=127.0.0.1:8080)")
		return 2
	}
	if err := pageserve.CheckDir(*dir); err != nil {
		fmt.Fprintln(stderr, "lbsim-serve:", err)
		return 2
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintln(stderr, "lbsim-serve:", listenError(*addr, err))
		return 1
	}
	fmt.Fprintf(stdout, "lbsim: serving %s on http://%s/ (Ctrl-C stops)\n", *dir, ln.Addr())
	err = serve(ln, *dir)
	fmt.Fprintln(stderr, "lbsim-serve:", err)
	return 1
}

// listenError says why listening on addr failed and what to do: a port in
// use names the address and how to pick another (make serve ADDR=…).
func listenError(addr string, err error) string {
	if errors.Is(err, syscall.EADDRINUSE) {
		return fmt.Sprintf("%s is already in use (another lbsim-serve, or another server): stop that one, or serve on another port: make serve ADDR=127.0.0.1:8081 (lbsim-serve --addr HOST:PORT)", addr)
	}
	return fmt.Sprintf("cannot listen on %s: %v (give --addr HOST:PORT, or make serve ADDR=HOST:PORT)", addr, err)
}
