// Package pageserve serves the built lbsim page (index.html, lbsim.wasm,
// wasm_exec.js) over HTTP. It is http.FileServer, which already gives .wasm
// the type application/wasm that WebAssembly.instantiateStreaming requires,
// with two additions: nothing is cached, so a rebuilt page is always
// fresh; and a file with a precompressed copy beside it, NAME.br or
// NAME.gz, is sent as that copy to a browser that accepts its encoding
// (the 12.2 MB module goes as about 2.1 MB of brotli or 3.0 MB of gzip).
package pageserve

import (
	"fmt"
	"mime"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
)

// DecodedLength is the header that gives, beside a compressed copy, the
// size of the file it decodes to, so the page's progress bar knows the
// total (Content-Length is the compressed size).
const DecodedLength = "X-Decoded-Length"

// encodings are the precompressed copies looked for, best first: the
// Content-Encoding token and the file name's suffix.
var encodings = []struct{ token, suffix string }{
	{"br", ".br"},
	{"gzip", ".gz"},
}

// Handler serves the files under dir.
func Handler(dir string) http.Handler {
	root := http.Dir(dir)
	files := http.FileServer(root)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Cache-Control", "no-cache")
		name := path.Clean("/" + r.URL.Path)
		if r.Method == http.MethodGet || r.Method == http.MethodHead {
			h.Add("Vary", "Accept-Encoding")
			accept := r.Header.Get("Accept-Encoding")
			for _, e := range encodings {
				if accepts(accept, e.token) && serveCopy(w, r, root, name, e.token, e.suffix) {
					return
				}
			}
		}
		files.ServeHTTP(w, r)
	})
}

// serveCopy serves name's precompressed copy name+suffix, if there is one,
// as the coding token, and reports whether it did.
func serveCopy(w http.ResponseWriter, r *http.Request, root http.Dir, name, token, suffix string) bool {
	f, err := root.Open(name + suffix)
	if err != nil {
		return false
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil || info.IsDir() {
		return false
	}
	h := w.Header()
	h.Set("Content-Encoding", token)
	h.Set("Content-Type", contentType(name))
	if plain, err := root.Open(name); err == nil {
		if pi, err := plain.Stat(); err == nil && !pi.IsDir() {
			h.Set(DecodedLength, strconv.FormatInt(pi.Size(), 10))
		}
		plain.Close()
	}
	http.ServeContent(w, r, name, info.ModTime(), f)
	return true
}

// contentType is the type of the file name as served uncompressed (the
// mime package knows .wasm as application/wasm).
func contentType(name string) string {
	if t := mime.TypeByExtension(path.Ext(name)); t != "" {
		return t
	}
	return "application/octet-stream"
}

// accepts reports whether an Accept-Encoding header value accepts the
// coding token: named with a q-value above 0 (RFC 9110 §12.5.3). A "*"
// is not taken to mean brotli or gzip.
func accepts(header, token string) bool {
	for _, item := range strings.Split(header, ",") {
		coding, params, _ := strings.Cut(strings.TrimSpace(item), ";")
		if !strings.EqualFold(strings.TrimSpace(coding), token) {
			continue
		}
		q := 1.0
		for _, p := range strings.Split(params, ";") {
			k, v, ok := strings.Cut(strings.TrimSpace(p), "=")
			if ok && strings.EqualFold(strings.TrimSpace(k), "q") {
				if f, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil {
					q = f
				}
			}
		}
		return q > 0
	}
	return false
}

// CheckDir reports why dir cannot be served as the page: it is missing,
// not a directory, or holds no index.html (an empty dist/, or a page never
// built). Serving it would answer 404 to everything.
func CheckDir(dir string) error {
	fi, err := os.Stat(dir)
	switch {
	case err != nil:
		return fmt.Errorf("%s does not exist: run make web first (it builds the page into dist/), or give --dir", dir)
	case !fi.IsDir():
		return fmt.Errorf("%s is not a directory: give --dir the directory make web wrote (dist/)", dir)
	}
	if _, err := os.Stat(filepath.Join(dir, "index.html")); err != nil {
		return fmt.Errorf("%s holds no index.html: run make web first (it builds the page into %s)", dir, dir)
	}
	return nil
}
