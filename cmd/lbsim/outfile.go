package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/lbsim/lbsim/internal/sweep"
)

// atomicFile is one output. A regular file (or a new path) is written to a
// temporary file beside its target and renamed into place only when
// complete, so a failed run never leaves a partial file that looks
// finished. A device or FIFO (/dev/null, a pipe) is written through: it is
// never replaced by a regular file.
type atomicFile struct {
	f       *os.File
	w       *bufio.Writer
	path    string // the target, symbolic links resolved
	through bool   // written in place, not renamed
	// sent counts the bytes that went through to the target (through
	// outputs only; the rest may wait in w's buffer): an interrupted
	// command says "cut short" only of a target that got some.
	sent *sentCounter
}

// sentCounter is a writer that counts what it passed on.
type sentCounter struct {
	w io.Writer
	n atomic.Int64
}

func (s *sentCounter) Write(p []byte) (int, error) {
	n, err := s.w.Write(p)
	s.n.Add(int64(n))
	return n, err
}

// gotSome reports whether some of the output reached a through target.
func (af *atomicFile) gotSome() bool { return af.sent != nil && af.sent.n.Load() > 0 }

// outputs is the set of files a command writes. Every path is checked by
// check before anything is created (a directory, a path named twice or an
// output that is also an input is refused), then create opens them, and
// they are committed together or aborted together.
type outputs struct {
	mu      sync.Mutex // abort may run from the signal handler
	files   []*atomicFile
	inputs  []target  // input files no output may name
	claimed []target  // outputs checked so far
	planned []planned // outputs checked by want, created by open
	// newDir is a directory that will be made before the outputs are
	// created (--log-dir): a path in it counts as a new file.
	newDir string
	// stdout, when set, is where an output named "-" goes (outstd.go);
	// stdoutFlag is the flag that claimed it.
	stdout     io.Writer
	stdoutFlag string
}

// target is a path as the file system resolves it, and the file it names
// (nil when it does not exist yet).
type target struct {
	flag, path string
	resolved   string
	info       fs.FileInfo
}

// resolve makes path absolute with its symbolic links resolved (those of
// its directory, when the file does not exist yet).
func resolve(flag, path string) target {
	t := target{flag: flag, path: path}
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = filepath.Clean(path)
	}
	// A device, FIFO or socket (through links too: /dev/stdout) is
	// written through the name given.
	if fi, err := os.Stat(abs); err == nil && !fi.Mode().IsRegular() && !fi.IsDir() {
		t.resolved, t.info = abs, fi
		return t
	}
	// A dangling symbolic link names the file it would create: follow
	// links by hand as far as they go (a bounded number of hops).
	for range 40 {
		fi, err := os.Lstat(abs)
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			break
		}
		target, err := os.Readlink(abs)
		if err != nil {
			break
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(abs), target)
		}
		abs = filepath.Clean(target)
	}
	t.resolved = abs
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		t.resolved = r
	} else if d, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
		t.resolved = filepath.Join(d, filepath.Base(abs))
	}
	if fi, err := os.Stat(t.resolved); err == nil {
		t.info = fi
	}
	return t
}

func (t target) same(u target) bool {
	if t.info != nil && u.info != nil {
		return os.SameFile(t.info, u.info)
	}
	return t.resolved == u.resolved
}

// special reports whether the target is a device, FIFO or socket.
func (t target) special() bool {
	return t.info != nil && !t.info.Mode().IsRegular() && !t.info.IsDir()
}

// planned is an output checked by want and created by open.
type planned struct {
	flag, path string
	dst        **atomicFile
}

// want checks the output path (see check) and plans it: open creates it
// into *dst. Every subcommand names all its inputs (addInput) and outputs
// (want) first, so a bad path stops it with exit 2 before any work.
func (o *outputs) want(flag, path string, dst **atomicFile) error {
	if err := o.check(flag, path); err != nil {
		return err
	}
	o.planned = append(o.planned, planned{flag, path, dst})
	return nil
}

// wantAll is want for each output asked for: one with no path is not.
func (o *outputs) wantAll(outs ...planned) error {
	for _, p := range outs {
		if p.path == "" {
			continue
		}
		if err := o.want(p.flag, p.path, p.dst); err != nil {
			return err
		}
	}
	return nil
}

// open creates every output planned by want.
func (o *outputs) open() error {
	for _, p := range o.planned {
		af, err := o.create(p.path)
		if err != nil {
			return fmt.Errorf("%s: %v", p.flag, err)
		}
		*p.dst = af
	}
	o.planned = nil
	return nil
}

// addInput records an input file that no output may overwrite.
func (o *outputs) addInput(flag, path string) {
	for _, u := range o.inputs {
		if u.flag == flag && u.path == path {
			return
		}
	}
	o.inputs = append(o.inputs, resolve(flag, path))
}

// runInputFlags are the names of the run flags that name a file a run
// reads: those whose flag is a file-reading flag (inputPath). No output of
// any subcommand may overwrite one: each such flag records its file as it
// is set (runOptions.inputs, handed over by addRunInputs); a sweep, whose
// runs are parsed later, records them from its arguments (addArgInputs).
func runInputFlags() []string {
	o := &runOptions{}
	var names []string
	(&cli{}).runFlags(o, &blockList{cfg: &o.cfg}).VisitAll(func(f *flag.Flag) {
		if _, ok := f.Value.(interface{ readsFile() }); ok {
			names = append(names, f.Name)
		}
	})
	return names
}

// addInputs records the files in (by flag, in the flags' order).
func (o *outputs) addInputs(in inputFiles) {
	for _, name := range slices.Sorted(maps.Keys(in)) {
		o.addInput(name, in[name])
	}
}

// addRunInputs records every file the run of ro reads.
func (o *outputs) addRunInputs(ro *runOptions) { o.addInputs(ro.inputs) }

// addArgInputs records every file named by run flags in args, written
// --NAME=VALUE, and by the values of dims (a sweep's varied settings).
func (o *outputs) addArgInputs(args []string, dims []sweep.Dimension) {
	for _, name := range runInputFlags() {
		for _, a := range args {
			if p, ok := strings.CutPrefix(a, "--"+name+"="); ok && p != "" {
				o.addInput("--"+name, p)
			}
		}
		for _, d := range dims {
			if d.Name == name {
				for _, p := range d.Values {
					o.addInput("--"+name, p)
				}
			}
		}
	}
}

// check refuses an output path that cannot be written as a whole file: a
// directory, a path whose directory is missing, a path another output or
// an input already names. It creates nothing.
func (o *outputs) check(flag, path string) error {
	if path == "-" {
		return o.checkStdout(flag)
	}
	t := resolve(flag, path)
	switch {
	case t.info != nil && t.info.IsDir():
		return fmt.Errorf("%s %s: is a directory; name a file", flag, printable(path))
	case t.info == nil && (o.newDir == "" || filepath.Dir(t.resolved) != o.newDir):
		switch d, err := os.Stat(filepath.Dir(t.resolved)); {
		case err != nil:
			return fmt.Errorf("%s %s: directory %s does not exist", flag, printable(path), printable(filepath.Dir(path)))
		case !d.IsDir():
			return fmt.Errorf("%s %s: %s is not a directory", flag, printable(path), printable(filepath.Dir(path)))
		}
	}
	if !t.special() { // two outputs may both be /dev/null
		for _, u := range o.claimed {
			if t.same(u) {
				return fmt.Errorf("%s %s and %s %s name the same file: give each output its own", u.flag, printable(u.path), flag, printable(path))
			}
		}
	}
	switch {
	case !o.isStdout(t):
	case !t.special():
		return fmt.Errorf("%s %s is the file standard output goes to: the output would replace it; name another file", flag, printable(path))
	case o.stdoutFlag != "":
		return fmt.Errorf("%s - and %s %s both name standard output: give one of them a file", o.stdoutFlag, flag, printable(path))
	}
	for _, u := range o.inputs {
		if t.same(u) {
			return fmt.Errorf("%s %s is the input %s %s: the output would overwrite it; name another file", flag, printable(path), u.flag, printable(u.path))
		}
	}
	o.claimed = append(o.claimed, t)
	return nil
}

// create opens the output at path (checked before with check).
func (o *outputs) create(path string) (*atomicFile, error) {
	if path == "-" {
		return o.createStdout(), nil
	}
	t := resolve("", path)
	af := &atomicFile{path: t.resolved}
	if t.special() {
		f, err := openThrough(t.resolved)
		if err != nil {
			return nil, fmt.Errorf("cannot write %v", openError(path, err))
		}
		af.f, af.through, af.sent = f, true, &sentCounter{w: f}
	} else {
		dir, base := filepath.Split(t.resolved)
		f, err := os.CreateTemp(dir, "."+base+".tmp-*")
		if err != nil {
			return nil, fmt.Errorf("cannot write %v", openError(path, err))
		}
		af.f = f
	}
	if af.sent != nil {
		af.w = bufio.NewWriterSize(af.sent, 256<<10)
	} else {
		af.w = bufio.NewWriterSize(af.f, 256<<10)
	}
	o.mu.Lock()
	o.files = append(o.files, af)
	o.mu.Unlock()
	return af, nil
}

// commit puts every output in place, in the order created.
func (o *outputs) commit() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, af := range o.files {
		err := af.w.Flush()
		if af.f != nil { // standard output is flushed and left open
			if !af.through {
				err = errors.Join(err, af.f.Chmod(0o644))
			}
			err = errors.Join(err, af.f.Close())
			if err == nil && !af.through {
				err = os.Rename(af.f.Name(), af.path)
			}
		}
		if err != nil {
			return fmt.Errorf("writing %s: %v", printable(af.path), err)
		}
	}
	o.files = nil
	return nil
}

// abort removes every temporary file not yet committed. It is safe to call
// from another goroutine (an interrupt) while the run writes.
func (o *outputs) abort() {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, af := range o.files {
		if af.f == nil { // standard output
			continue
		}
		af.f.Close()
		if !af.through {
			os.Remove(af.f.Name())
		}
	}
	o.files = nil
}
