package main

import (
	"crypto/sha256"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/lbsim/lbsim/scenario"
)

// sameRunFlags tells whether a results line's recorded flags are this
// sweep's: the same flags, where a flag that names a file (--trace,
// --service-file) matches when both name a file with the same content,
// however each was spelled (sub/t.csv, $PWD/sub/t.csv, ../sub/t.csv from
// another directory, a scenario file's relative path joined to the
// file's spelling). A recorded relative path is read from the current
// directory or, failing that, from the results file's directory (where
// the sweep most likely ran).
type sameRunFlags struct {
	outDir string
	sums   map[string]string // path as read → content digest ("" unreadable)
}

func newSameRunFlags(out string) *sameRunFlags {
	return &sameRunFlags{outDir: filepath.Dir(out), sums: map[string]string{}}
}

// equal compares recorded with now, flag by flag.
func (s *sameRunFlags) equal(recorded, now []string) bool {
	if slices.Equal(recorded, now) {
		return true
	}
	if len(recorded) != len(now) {
		return false
	}
	for i := range now {
		if recorded[i] == now[i] {
			continue
		}
		rn, rv, _ := strings.Cut(recorded[i], "=")
		nn, nv, _ := strings.Cut(now[i], "=")
		if rn != nn || !scenario.IsPath(strings.TrimPrefix(nn, "--")) {
			return false
		}
		a, b := s.digest(rv, true), s.digest(nv, false)
		if a == "" || a != b {
			return false
		}
	}
	return true
}

// digest is the SHA-256 of the file at path, "" when it cannot be read;
// a recorded relative path is tried from the results file's directory too.
func (s *sameRunFlags) digest(path string, recorded bool) string {
	if d := s.sum(path); d != "" || !recorded || filepath.IsAbs(path) {
		return d
	}
	return s.sum(filepath.Join(s.outDir, path))
}

func (s *sameRunFlags) sum(path string) string {
	if d, ok := s.sums[path]; ok {
		return d
	}
	d := ""
	if fi, err := os.Stat(path); err != nil || !fi.Mode().IsRegular() {
		s.sums[path] = d // a device or FIFO is never read: it may never end
		return d
	}
	if f, err := os.Open(path); err == nil {
		h := sha256.New()
		if _, err := io.Copy(h, io.LimitReader(f, 1<<30)); err == nil {
			d = string(h.Sum(nil))
		}
		f.Close()
	}
	s.sums[path] = d
	return d
}
