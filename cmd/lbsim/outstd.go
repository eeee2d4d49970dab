package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
)

// Standard output as an output: every output flag takes "-" (docs/cli.md),
// and then nothing else goes to standard output. A subcommand that offers
// it sets outputs.stdout before checking its outputs; at most one output
// may claim it.

// checkStdout claims standard output for flag.
func (o *outputs) checkStdout(flag string) error {
	switch {
	case o.stdout == nil:
		return fmt.Errorf("%s -: this output cannot go to standard output; name a file", flag)
	case o.stdoutFlag != "":
		return fmt.Errorf("%s - and %s - both name standard output: give one of them a file", o.stdoutFlag, flag)
	}
	for _, u := range o.claimed {
		if o.isStdout(u) {
			return fmt.Errorf("%s - and %s %s both name standard output: give one of them a file", flag, u.flag, printable(u.path))
		}
	}
	o.stdoutFlag = flag
	return nil
}

// toStdout reports whether an output claimed standard output, so the
// subcommand's own text goes to standard error instead.
func (o *outputs) toStdout() bool { return o.stdoutFlag != "" }

// createStdout is the output "-": written through to standard output,
// never renamed or closed.
func (o *outputs) createStdout() *atomicFile {
	sent := &sentCounter{w: o.stdout}
	af := &atomicFile{w: bufio.NewWriterSize(sent, 256<<10), path: "standard output", through: true, sent: sent}
	o.mu.Lock()
	o.files = append(o.files, af)
	o.mu.Unlock()
	return af
}

// nopCloser is standard output where a file is closed after use: the
// sweep's results written through, left open.
type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// isStdout reports whether t is the file or pipe standard output goes to
// (> FILE, /dev/stdout): an output put in a file by a rename would replace
// it and lose what standard output took, and one written through a pipe
// mixes with what an output "-" writes. A terminal or /dev/null (a
// character device) is not counted.
func (o *outputs) isStdout(t target) bool {
	w := o.stdout
	if cw, isChecked := w.(*checkedWriter); isChecked {
		w = cw.w
	}
	f, ok := w.(*os.File)
	if !ok || t.info == nil || t.info.Mode()&os.ModeCharDevice != 0 {
		return false
	}
	fi, err := f.Stat()
	return err == nil && os.SameFile(fi, t.info)
}

// humanOut is where a subcommand's own text goes: standard output, or
// standard error when an output claimed standard output.
func (c *cli) humanOut(outs *outputs) io.Writer {
	if outs.toStdout() {
		return c.stderr
	}
	return c.stdout
}

// oldSwitches reads the old spelling of output flags that were switches
// (lbsim aggregate --json printed JSON): such a flag followed by nothing,
// by another flag or by a results file (.jsonl, an input) becomes FLAG=-
// with a one-line notice, so scripts keep working.
func oldSwitches(args []string, stderr io.Writer, cmd string, names ...string) []string {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		name := strings.TrimLeft(a, "-")
		if !strings.HasPrefix(a, "-") || !slices.Contains(names, name) {
			out = append(out, a)
			if a == "--" {
				return append(out, args[i+1:]...)
			}
			continue
		}
		if i+1 < len(args) && (args[i+1] == "-" || !strings.HasPrefix(args[i+1], "-")) && !strings.HasSuffix(args[i+1], ".jsonl") {
			out = append(out, a) // --json FILE
		} else {
			fmt.Fprintf(stderr, "lbsim %s: --%s without a file is the old spelling: read as --%s - (standard output)\n", cmd, name, name)
			out = append(out, "--"+name+"=-")
		}
	}
	return out
}

// outName names an output path in a message: "-" is standard output.
func outName(path string) string {
	if path == "-" {
		return "standard output"
	}
	return path
}

// stoppedAt is what a command interrupted at cycle says of its outputs:
// the streams written through (standard output, a device, a FIFO) get
// what waits in their buffers, so that each ends with the whole lines
// written so far (a timeline up to the cycle reached) rather than
// mid-line; files are never put in place. It is safe beside abort.
func (o *outputs) stoppedAt(cycle int64) string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return stoppedAt(cycle, o.files...)
}

// stoppedAt is outputs.stoppedAt for the files given (nil for none).
func stoppedAt(cycle int64, files ...*atomicFile) string {
	var through []string
	for _, af := range files {
		if af != nil && af.through {
			af.w.Flush() // an error leaves it cut where it was
		}
		if af != nil && af.gotSome() {
			through = append(through, printable(af.path))
		}
	}
	if len(through) == 0 {
		return "no output was written"
	}
	return fmt.Sprintf("no file was written; %s holds its output up to cycle %d, in whole lines", strings.Join(through, ", "), cycle)
}

// checkedWriter is standard output that remembers its first write error,
// so that a subcommand whose own text could not be written (> /dev/full)
// exits 1 with a message rather than 0 (main checks it).
type checkedWriter struct {
	w   io.Writer
	err error
}

func (cw *checkedWriter) Write(p []byte) (int, error) {
	n, err := cw.w.Write(p)
	if err != nil && cw.err == nil {
		cw.err = err
	}
	return n, err
}

// checkStdoutWritten turns a subcommand's success into exit 1 when its
// standard output lost a write, naming the command and the error.
func (c *cli) checkStdoutWritten(name string, code int) int {
	cw, ok := c.stdout.(*checkedWriter)
	if !ok || cw.err == nil || code != exitOK {
		return code
	}
	fmt.Fprintf(c.stderr, "lbsim %s: writing standard output: %v\n", name, cw.err)
	return exitFailed
}
