// Command lbsim-serve serves a directory (dist/ by default) over HTTP on
// 127.0.0.1:8080 for the lbsim web page, printing the address. It sets
// the .wasm type so WebAssembly.instantiateStreaming works and disables
// caching so a rebuilt page is always fresh.
package main

import (
	"flag"
	"fmt"
	"mime"
	"net"
	"net/http"
	"os"
)

func main() {
	dir := flag.String("dir", "dist", "directory to serve")
	addr := flag.String("addr", "127.0.0.1:8080", "address to listen on")
	flag.Parse()
	mime.AddExtensionType(".wasm", "application/wasm")
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "lbsim-serve:", err)
		os.Exit(1)
	}
	fmt.Printf("lbsim: serving %s on http://%s/ (Ctrl-C stops)\n", *dir, ln.Addr())
	fs := http.FileServer(http.Dir(*dir))
	err = http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-cache")
		fs.ServeHTTP(w, r)
	}))
	fmt.Fprintln(os.Stderr, "lbsim-serve:", err)
	os.Exit(1)
}
