package main

import (
	"bytes"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRefusesDirWithoutPage: a missing directory, an empty one or a file
// is refused with exit 2 and "run make web first" (it said "serving" and
// answered 404 to everything); a directory with a page is served.
func TestRefusesDirWithoutPage(t *testing.T) {
	tmp := t.TempDir()
	empty := filepath.Join(tmp, "empty")
	os.Mkdir(empty, 0o755)
	file := filepath.Join(tmp, "file")
	os.WriteFile(file, []byte("x"), 0o644)
	noServe := func(net.Listener, string) error {
		t.Error("served a directory without a page")
		return errors.New("no")
	}
	for _, dir := range []string{filepath.Join(tmp, "missing"), empty, file} {
		var out, errb bytes.Buffer
		code := run([]string{"--dir", dir, "--addr", "127.0.0.1:0"}, &out, &errb, noServe)
		if code != 2 || out.Len() != 0 || !strings.Contains(errb.String(), dir) || !strings.Contains(errb.String(), "make web") && !strings.Contains(errb.String(), "--dir") {
			t.Errorf("--dir %s: exit %d, stdout %q, stderr %q; want exit 2 naming it and make web", dir, code, out.String(), errb.String())
		}
	}
	page := filepath.Join(tmp, "dist")
	os.Mkdir(page, 0o755)
	os.WriteFile(filepath.Join(page, "index.html"), []byte("<html>"), 0o644)
	var out, errb bytes.Buffer
	served := ""
	code := run([]string{"--dir", page, "--addr", "127.0.0.1:0"}, &out, &errb, func(ln net.Listener, dir string) error {
		served = dir
		ln.Close()
		return errors.New("closed")
	})
	if code != 1 || served != page || !strings.Contains(out.String(), "serving "+page) {
		t.Errorf("--dir with a page: exit %d, served %q, stdout %q, stderr %q", code, served, out.String(), errb.String())
	}
}

// TestSaysWhenThePortIsTaken: an address another server holds is refused
// with exit 1, naming the address and how to pick another (make serve
// ADDR=…), not Go's bare "bind: address already in use"; an address that
// cannot be listened on says which and how to give one.
func TestSaysWhenThePortIsTaken(t *testing.T) {
	page := t.TempDir()
	os.WriteFile(filepath.Join(page, "index.html"), []byte("<html>"), 0o644)
	held, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	noServe := func(net.Listener, string) error {
		t.Error("served on an address it could not have")
		return errors.New("no")
	}
	for _, c := range []struct{ addr, want string }{
		{held.Addr().String(), held.Addr().String() + " is already in use"},
		{"127.0.0.1:notaport", "cannot listen on 127.0.0.1:notaport"},
		{"127.0.0.1:99999", "cannot listen on 127.0.0.1:99999"},
	} {
		var out, errb bytes.Buffer
		code := run([]string{"--dir", page, "--addr", c.addr}, &out, &errb, noServe)
		msg := errb.String()
		if code != 1 || out.Len() != 0 || !strings.Contains(msg, c.want) || !strings.Contains(msg, "ADDR=") {
			t.Errorf("--addr %s: exit %d, stdout %q, stderr %q; want exit 1 with %q and how to pick another (ADDR=)", c.addr, code, out.String(), msg, c.want)
		}
	}
}

// TestRefusesAnEmptyAddress: make serve ADDR= (empty) is refused with exit
// 2, not served on every interface at a random port, as net.Listen would.
func TestRefusesAnEmptyAddress(t *testing.T) {
	page := t.TempDir()
	os.WriteFile(filepath.Join(page, "index.html"), []byte("<html>"), 0o644)
	var out, errb bytes.Buffer
	code := run([]string{"--dir", page, "--addr", ""}, &out, &errb, func(ln net.Listener, _ string) error {
		t.Errorf("served on %v", ln.Addr())
		return errors.New("no")
	})
	if code != 2 || out.Len() != 0 || !strings.Contains(errb.String(), "address is empty") || !strings.Contains(errb.String(), "ADDR=") {
		t.Errorf("--addr \"\": exit %d, stdout %q, stderr %q; want exit 2 saying the address is empty", code, out.String(), errb.String())
	}
}
