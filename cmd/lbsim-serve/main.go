// Command lbsim-serve serves a directory (dist/ by default) over HTTP on
// 127.0.0.1:8080 for the lbsim web page, printing the address. It sends
// the precompressed copies `make web` writes (lbsim.wasm.br, .gz) to
// browsers that accept them, and disables caching so a rebuilt page is
// always fresh (see internal/pageserve).
package main

import (
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"

	"github.com/lbsim/lbsim/internal/pageserve"
)

func main() {
	dir := flag.String("dir", "dist", "directory to serve")
	addr := flag.String("addr", "127.0.0.1:8080", "address to listen on")
	flag.Parse()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "lbsim-serve:", err)
		os.Exit(1)
	}
	fmt.Printf("lbsim: serving %s on http://%s/ (Ctrl-C stops)\n", *dir, ln.Addr())
	err = http.Serve(ln, pageserve.Handler(*dir))
	fmt.Fprintln(os.Stderr, "lbsim-serve:", err)
	os.Exit(1)
}
