package pageserve

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// page writes a module with a gzip copy, a script with a (pretend) brotli
// copy only, and a page with no copy.
func page(t *testing.T) (dir string, module []byte) {
	t.Helper()
	dir = t.TempDir()
	module = bytes.Repeat([]byte("\x00asm lbsim module "), 5000)
	var gz bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
	zw.Write(module)
	zw.Close()
	for name, data := range map[string][]byte{
		"lbsim.wasm":      module,
		"lbsim.wasm.gz":   gz.Bytes(),
		"wasm_exec.js":    []byte("// runtime"),
		"wasm_exec.js.br": []byte("pretend brotli"),
		"index.html":      []byte("<!doctype html><title>lbsim</title>"),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir, module
}

func TestHandlerNegotiatesPrecompressedCopies(t *testing.T) {
	dir, module := page(t)
	srv := httptest.NewServer(Handler(dir))
	defer srv.Close()
	tests := []struct {
		name, path, accept string
		method             string
		encoding, ctype    string
		body               string // "" = the module, decompressed when gzip
	}{
		{"gzip accepted", "/lbsim.wasm", "gzip, deflate, br", "GET", "gzip", "application/wasm", ""},
		{"no encoding accepted", "/lbsim.wasm", "", "GET", "", "application/wasm", ""},
		{"gzip refused by q=0", "/lbsim.wasm", "gzip;q=0, deflate", "GET", "", "application/wasm", ""},
		{"gzip with a q-value", "/lbsim.wasm", "br;q=1.0, gzip;q=0.5", "GET", "gzip", "application/wasm", ""},
		{"any is not brotli or gzip", "/lbsim.wasm", "*", "GET", "", "application/wasm", ""},
		{"brotli copy", "/wasm_exec.js", "gzip, br", "GET", "br", "text/javascript; charset=utf-8", "pretend brotli"},
		{"brotli not accepted", "/wasm_exec.js", "gzip", "GET", "", "text/javascript; charset=utf-8", "// runtime"},
		{"no copy", "/", "gzip, br", "GET", "", "text/html; charset=utf-8", "<!doctype html><title>lbsim</title>"},
		{"head", "/lbsim.wasm", "gzip", "HEAD", "gzip", "application/wasm", "-"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest(tt.method, srv.URL+tt.path, nil)
			// Set the header by hand: the transport would add gzip itself
			// and decode the answer.
			req.Header.Set("Accept-Encoding", tt.accept)
			res, err := http.DefaultTransport.RoundTrip(req)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			raw, _ := io.ReadAll(res.Body)
			if res.StatusCode != http.StatusOK {
				t.Fatalf("status %d", res.StatusCode)
			}
			if got := res.Header.Get("Content-Encoding"); got != tt.encoding {
				t.Errorf("Content-Encoding %q, want %q", got, tt.encoding)
			}
			if got := res.Header.Get("Content-Type"); got != tt.ctype {
				t.Errorf("Content-Type %q, want %q", got, tt.ctype)
			}
			if res.Header.Get("Cache-Control") != "no-cache" || res.Header.Get("Vary") != "Accept-Encoding" {
				t.Errorf("Cache-Control %q, Vary %q", res.Header.Get("Cache-Control"), res.Header.Get("Vary"))
			}
			switch {
			case tt.body == "-":
				if len(raw) != 0 {
					t.Errorf("HEAD sent %d bytes", len(raw))
				}
			case tt.body != "":
				if string(raw) != tt.body {
					t.Errorf("body %q, want %q", raw, tt.body)
				}
			case tt.encoding == "gzip":
				if got := res.Header.Get(DecodedLength); got != strconv.Itoa(len(module)) {
					t.Errorf("%s %q, want the module's %d bytes", DecodedLength, got, len(module))
				}
				zr, err := gzip.NewReader(bytes.NewReader(raw))
				if err != nil {
					t.Fatal(err)
				}
				if plain, _ := io.ReadAll(zr); !bytes.Equal(plain, module) || len(raw) >= len(module) {
					t.Errorf("the gzip copy: %d bytes that decode to %d, want the module's %d", len(raw), len(plain), len(module))
				}
			default:
				if !bytes.Equal(raw, module) {
					t.Errorf("got %d bytes, want the module's %d", len(raw), len(module))
				}
			}
		})
	}
}

// TestHandlerStaysInItsDirectory asks for files outside the directory and
// for a missing one.
func TestHandlerStaysInItsDirectory(t *testing.T) {
	dir, _ := page(t)
	os.WriteFile(filepath.Join(filepath.Dir(dir), "secret.gz"), []byte("no"), 0o644)
	srv := httptest.NewServer(Handler(dir))
	defer srv.Close()
	for _, p := range []string{"/../secret", "/%2e%2e/secret", "/missing.wasm"} {
		req, _ := http.NewRequest("GET", srv.URL+p, nil)
		req.Header.Set("Accept-Encoding", "gzip")
		res, err := http.DefaultTransport.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode == http.StatusOK || string(body) == "no" {
			t.Errorf("%s: status %d, body %q", p, res.StatusCode, body)
		}
	}
}

func TestAccepts(t *testing.T) {
	tests := []struct {
		header, token string
		want          bool
	}{
		{"gzip", "gzip", true},
		{"GZIP", "gzip", true},
		{"deflate, gzip;q=0.2", "gzip", true},
		{"gzip;q=0", "gzip", false},
		{"gzip; q=0.000", "gzip", false},
		{"x-gzip", "gzip", false},
		{"", "br", false},
		{"br;q=0.9, gzip", "br", true},
		{"*", "br", false},
	}
	for _, tt := range tests {
		if got := accepts(tt.header, tt.token); got != tt.want {
			t.Errorf("accepts(%q, %q) = %v, want %v", tt.header, tt.token, got, tt.want)
		}
	}
}
